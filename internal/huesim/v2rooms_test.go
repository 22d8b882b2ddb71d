package huesim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// children is a RoomPut's children as JSON.
func children(rtype string, ids ...string) string {
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf(`{"rid":%q,"rtype":%q}`, id, rtype))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// createdRID is the rid a successful POST answered.
func createdRID(t *testing.T, c *http.Client, s *Server, path, body string) string {
	t.Helper()
	status, v := v2Do(t, c, s, "POST", path, testUser, body)
	if status != http.StatusOK {
		t.Fatalf("POST answered %d %v", status, v)
	}
	return v["data"].([]any)[0].(map[string]any)["rid"].(string)
}

// TestV2RoomsAreV1Groups: a room and a zone made through CLIP v2 are v1
// groups of type Room and Zone (one object, two views: id_v1 "/groups/N",
// aiohue's real-bridge fixture), a room's children are devices and a
// zone's lights, each has a grouped_light owned by it while it holds
// lights; a room made as the Hue app does (v1) shows in v2; PUT children
// replaces the list, a device another room holds is refused with nothing
// changed, and DELETE removes the group from both views.
func TestV2RoomsAreV1Groups(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a", "b", "c"}})
	s.SetGroupRate(math.Inf(1), 1) // not what this test is about
	room := createdRID(t, c, s, "/clip/v2/resource/room",
		`{"children":`+children("device", s.DeviceIDV2("1"), s.DeviceIDV2("2"))+`,"metadata":{"name":"Lounge","archetype":"living_room"}}`)
	zone := createdRID(t, c, s, "/clip/v2/resource/zone",
		`{"children":`+children("light", s.LightIDV2("2"), s.LightIDV2("3"))+`,"metadata":{"name":"Reading"}}`)
	groups := s.Groups()
	if g := groups["1"]; g.Type != TypeRoom || g.Name != "Lounge" || g.Class != "Living room" || !slices.Equal(g.Lights, []string{"1", "2"}) {
		t.Fatalf("the v2 room as a v1 group: %+v", g)
	}
	if g := groups["2"]; g.Type != TypeZone || !slices.Equal(g.Lights, []string{"2", "3"}) {
		t.Fatalf("the v2 zone as a v1 group: %+v", g)
	}
	if s.RoomIDV2("1") != room || s.RoomIDV2("2") != zone {
		t.Fatalf("ids %s %s, created %s %s", s.RoomIDV2("1"), s.RoomIDV2("2"), room, zone)
	}
	_, v := v2Do(t, c, s, "GET", "/clip/v2/resource/room/"+room, testUser, "")
	got := v["data"].([]any)[0].(map[string]any)
	if got["id_v1"] != "/groups/1" || len(got["children"].([]any)) != 2 ||
		got["children"].([]any)[0].(map[string]any)["rtype"] != "device" {
		t.Errorf("room %v", got)
	}
	services := got["services"].([]any)
	if len(services) != 1 || services[0].(map[string]any)["rid"] != s.GroupedLightIDV2("1") {
		t.Errorf("room services %v", services)
	}
	_, v = v2Do(t, c, s, "GET", "/clip/v2/resource/grouped_light/"+s.GroupedLightIDV2("2"), testUser, "")
	gl := v["data"].([]any)[0].(map[string]any)
	if gl["id_v1"] != "/groups/2" || gl["owner"].(map[string]any)["rtype"] != "zone" || gl["owner"].(map[string]any)["rid"] != zone {
		t.Errorf("zone's grouped_light %v", gl)
	}

	// The Hue app's room (v1) in v2, empty: no grouped_light.
	app := s.AddGroup("Hall")
	_, v = v2Do(t, c, s, "GET", "/clip/v2/resource/room/"+s.RoomIDV2(app), testUser, "")
	if r := v["data"].([]any)[0].(map[string]any); r["id_v1"] != "/groups/"+app || len(r["services"].([]any)) != 0 {
		t.Errorf("an empty room %v", r)
	}

	// PUT children replaces; a device of another room is refused.
	if st, v := v2Do(t, c, s, "PUT", "/clip/v2/resource/room/"+room, testUser, `{"children":`+children("device", s.DeviceIDV2("3"))+`}`); st != http.StatusOK {
		t.Fatalf("PUT children: %d %v", st, v)
	}
	if st, _ := v2Do(t, c, s, "PUT", "/clip/v2/resource/room/"+s.RoomIDV2(app), testUser, `{"children":`+children("device", s.DeviceIDV2("3"))+`}`); st != http.StatusConflict {
		t.Errorf("a device in two rooms: %d, want 409", st)
	}
	if g := s.Groups(); !slices.Equal(g["1"].Lights, []string{"3"}) || len(g[app].Lights) != 0 {
		t.Errorf("after PUT: %+v %+v", g["1"], g[app])
	}

	if st, _ := v2Do(t, c, s, "DELETE", "/clip/v2/resource/zone/"+zone, testUser, ""); st != http.StatusOK {
		t.Fatalf("DELETE: %d", st)
	}
	if _, ok := s.Groups()["2"]; ok {
		t.Error("the zone deleted through v2 is still a v1 group")
	}
	if st, _ := v2Do(t, c, s, "DELETE", "/clip/v2/resource/zone/"+zone, testUser, ""); st != http.StatusNotFound {
		t.Errorf("DELETE again: %d, want 404", st)
	}
}

// TestV2RoomWritesRefused: what openhue-api's RoomPut requires (children,
// metadata.name of 1-32 characters) and the children's types (devices in
// rooms, lights in zones) are checked, answered 400, and change nothing.
func TestV2RoomWritesRefused(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a"}})
	s.SetGroupRate(math.Inf(1), 1)
	for _, tc := range []struct{ name, path, body string }{
		{"no children", "/clip/v2/resource/room", `{"metadata":{"name":"x"}}`},
		{"no name", "/clip/v2/resource/room", `{"children":[]}`},
		{"name too long", "/clip/v2/resource/zone", `{"children":[],"metadata":{"name":"` + strings.Repeat("n", 33) + `"}}`},
		{"a light in a room", "/clip/v2/resource/room", `{"children":` + children("light", s.LightIDV2("1")) + `,"metadata":{"name":"x"}}`},
		{"a device in a zone", "/clip/v2/resource/zone", `{"children":` + children("device", s.DeviceIDV2("1")) + `,"metadata":{"name":"x"}}`},
		{"not json", "/clip/v2/resource/zone", `{`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, v := v2Do(t, c, s, "POST", tc.path, testUser, tc.body); st != http.StatusBadRequest || len(v["errors"].([]any)) == 0 {
				t.Errorf("%d %v, want 400 with an error", st, v)
			}
			if len(s.Groups()) != 0 {
				t.Errorf("a refused POST made a group: %v", s.Groups())
			}
		})
	}
}

// TestV2GroupedLightOfAZone: a zone's grouped_light sets its lights and no
// other, each as far as its model can, and takes the group budget (about
// one command a second: a third at once is 429).
func TestV2GroupedLightOfAZone(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a", "b", "c"}})
	id := s.AddZone("Reading", "1", "2")
	put := func() int {
		st, _ := v2Do(t, c, s, "PUT", "/clip/v2/resource/grouped_light/"+s.GroupedLightIDV2(id), testUser,
			`{"on":{"on":true},"dimming":{"brightness":50}}`)
		return st
	}
	if st := put(); st != http.StatusOK {
		t.Fatalf("PUT grouped_light: %d", st)
	}
	for id, l := range s.Lights() {
		if member := id != "3"; l.State.On != member || (member && l.State.Bri != 128) {
			t.Errorf("light %s after the zone's command: %+v", id, l.State)
		}
	}
	if a, b := put(), put(); a != http.StatusOK || b != http.StatusTooManyRequests {
		t.Errorf("two more at once: %d %d, want 200 (the burst of 2) then 429", a, b)
	}
}

// TestV2RoomEvents: creating, renaming and deleting a room (through CLIP
// v2 or as the Hue app does) is an add, update and delete on the event
// stream, the room with its grouped_light.
func TestV2RoomEvents(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a"}})
	s.SetGroupRate(math.Inf(1), 1)
	next := openStream(t, c, s)
	id := s.AddGroup("Hall", "1")
	seen := func(typ, rid string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			for _, ct := range next() {
				for _, d := range ct.Data {
					if ct.Type == typ && d["id"] == rid {
						return
					}
				}
			}
		}
		t.Fatalf("no %s event for %s", typ, rid)
	}
	room, grouped := s.RoomIDV2(id), s.GroupedLightIDV2(id)
	seen("add", room)
	if st, _ := v2Do(t, c, s, "PUT", "/clip/v2/resource/room/"+room, testUser, `{"metadata":{"name":"Hallway"}}`); st != http.StatusOK {
		t.Fatalf("rename: %d", st)
	}
	seen("update", room)
	if st, _ := v2Do(t, c, s, "DELETE", "/clip/v2/resource/room/"+room, testUser, ""); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
	seen("delete", grouped)
}

type container struct {
	Type string           `json:"type"`
	Data []map[string]any `json:"data"`
}

// openStream opens the event stream and returns a function that waits for
// its next message.
func openStream(t *testing.T, c *http.Client, s *Server) func() []container {
	req, _ := http.NewRequest("GET", s.TLSURL()+"/eventstream/clip/v2", nil)
	req.Header.Set("hue-application-key", testUser)
	stream := *c
	stream.Timeout = 0
	res, err := stream.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The bridge subscribes the stream before it sends ": hi": a change
	// made once that is read is in the stream.
	sc := bufio.NewScanner(res.Body)
	if !sc.Scan() || sc.Text() != ": hi" {
		t.Fatalf("the stream did not start with \": hi\": %q", sc.Text())
	}
	messages := make(chan []container, 16)
	go func() {
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var cs []container
				_ = json.Unmarshal([]byte(data), &cs)
				messages <- cs
			}
		}
	}()
	t.Cleanup(func() { res.Body.Close() })
	return func() []container {
		select {
		case m := <-messages:
			return m
		case <-time.After(5 * time.Second):
			return nil
		}
	}
}

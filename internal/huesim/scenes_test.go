package huesim

import (
	"fmt"
	"strings"
	"testing"
)

// TestRoomsAndZones: a light is in one room at most (error 306), in any
// number of zones; rooms and zones may be empty and get class "Other".
func TestRoomsAndZones(t *testing.T) {
	b := New(Options{Lights: []string{"a", "b", "c"}, Usernames: []string{testUser}})
	unlimitedGroups(b)
	srv := newServer(t, b)
	u := "/api/" + testUser
	cases := []struct {
		name, method, path, body string
		wantError                int
	}{
		{"a room", "POST", "/groups", `{"name":"Kitchen","type":"Room","class":"Kitchen","lights":["1","2"]}`, 0},
		{"a light of that room in another room", "POST", "/groups", `{"name":"Hall","type":"Room","lights":["2","3"]}`, ErrLightInAnotherRoom},
		{"the same lights in a zone", "POST", "/groups", `{"name":"Downstairs","type":"Zone","lights":["1","2","3"]}`, 0},
		{"and in a second zone", "POST", "/groups", `{"name":"Front","type":"Zone","lights":["2"]}`, 0},
		{"an empty room", "POST", "/groups", `{"name":"Attic","type":"Room","lights":[]}`, 0},
		{"an unknown type", "POST", "/groups", `{"name":"x","type":"Garden","lights":["1"]}`, ErrInvalidValue},
		{"an empty light group", "POST", "/groups", `{"name":"x","lights":[]}`, ErrInvalidValue},
		{"moving a room's light into the empty room", "PUT", "/groups/4", `{"lights":["1"]}`, ErrLightInAnotherRoom},
		{"a free light into the empty room", "PUT", "/groups/4", `{"lights":["3"],"name":"Loft"}`, 0},
		{"an unknown light into a zone", "PUT", "/groups/2", `{"lights":["9"]}`, ErrInvalidValue},
	}
	for _, tc := range cases {
		_, v := do(t, srv, tc.method, u+tc.path, tc.body)
		got, desc := firstError(v)
		if got != tc.wantError {
			t.Fatalf("%s: error %d (%s), want %d: %v", tc.name, got, desc, tc.wantError, v)
		}
	}
	groups := b.Groups()
	want := map[string]string{"1": "Room Kitchen [1 2]", "2": "Zone Other [1 2 3]", "3": "Zone Other [2]", "4": "Room Other [3]"}
	for id, w := range want {
		g := groups[id]
		if got := fmt.Sprintf("%s %s %v", g.Type, g.Class, g.Lights); got != w {
			t.Errorf("group %s: %s, want %s", id, got, w)
		}
	}
	if groups["4"].Name != "Loft" {
		t.Errorf("group 4 was not renamed: %+v", groups["4"])
	}
}

// TestSceneLifecycle: a LightScene stored with lightstates, recalled on a
// group (only the lights of both change), changed, and deleted; every write
// is in the command log, and only the recall is a group command.
func TestSceneLifecycle(t *testing.T) {
	b := New(Options{Lights: []string{"lamp", "white", "other"}, Models: map[string]string{"white": "LWB010"},
		Usernames: []string{testUser}})
	unlimitedGroups(b)
	srv := newServer(t, b)
	u := "/api/" + testUser
	room := b.AddGroup("Living room", "1", "2")

	_, created := do(t, srv, "POST", u+"/scenes", `{"name":"Evening","lights":["1","2","3"],"recycle":false,
		"appdata":{"version":1,"data":"tether"},
		"lightstates":{"1":{"on":true,"bri":100,"xy":[0.5,0.4]},"2":{"on":true,"bri":30,"xy":[0.5,0.4],"transitiontime":0}}}`)
	id := created.([]any)[0].(map[string]any)["success"].(map[string]any)["id"].(string)
	if len(id) != 15 {
		t.Fatalf("scene id %q: a bridge's ids are 15 characters", id)
	}
	_, list := do(t, srv, "GET", u+"/scenes", "")
	if _, has := list.(map[string]any)[id].(map[string]any)["lightstates"]; has {
		t.Fatal("GET /scenes lists lightstates; a bridge shows them only for one scene")
	}
	_, one := do(t, srv, "GET", u+"/scenes/"+id, "")
	states := one.(map[string]any)["lightstates"].(map[string]any)
	if s3 := states["3"].(map[string]any); s3["on"] != false || s3["ct"] != float64(366) {
		t.Fatalf("light 3 was given no lightstate, so the scene keeps its current state: %v", s3)
	}

	do(t, srv, "PUT", u+"/groups/"+room+"/action", `{"scene":"`+id+`"}`)
	lamp, _ := b.Light("1")
	white, _ := b.Light("2")
	other, _ := b.Light("3")
	if !lamp.State.On || lamp.State.Bri != 100 || lamp.State.ColorMode != "xy" {
		t.Fatalf("lamp after the recall: %+v", lamp.State)
	}
	if !white.State.On || white.State.Bri != 30 || white.State.ColorMode == "xy" {
		t.Fatalf("a white bulb takes the brightness and ignores the colour: %+v", white.State)
	}
	if other.State.On {
		t.Fatal("light 3 is in the scene but not in the group: a recall on the group leaves it")
	}
	if got := b.ActiveScene(room); got != "Evening" {
		t.Fatalf("active scene %q, want Evening", got)
	}
	if err := b.ChangeLight("1", func(st *LightState) { st.Bri = 10 }); err != nil {
		t.Fatal(err)
	}
	if got := b.ActiveScene(room); got != "" {
		t.Fatalf("a light of the room changed: active scene %q, want none", got)
	}

	_, changed := do(t, srv, "PUT", u+"/scenes/"+id, `{"name":"Night","lightstates":{"1":{"on":true,"bri":5,"ct":450}}}`)
	if typ, desc := firstError(changed); typ != 0 {
		t.Fatalf("PUT scene: %d %s", typ, desc)
	}
	if !strings.Contains(fmt.Sprint(changed), "/scenes/"+id+"/lightstates/1/bri") {
		t.Fatalf("PUT scene answers attribute by attribute: %v", changed)
	}
	do(t, srv, "PUT", u+"/groups/0/action", `{"scene":"`+id+`","transitiontime":0}`)
	if lamp, _ := b.Light("1"); lamp.State.Bri != 5 || lamp.State.ColorMode != "ct" {
		t.Fatalf("lamp after recalling the changed scene on group 0: %+v", lamp.State)
	}
	if other, _ := b.Light("3"); other.State.On {
		t.Fatal("group 0 recalls every light of the scene, each to its stored state: light 3 was stored off")
	}

	_, deleted := do(t, srv, "DELETE", u+"/scenes/"+id, "")
	if fmt.Sprint(deleted) != fmt.Sprintf("[map[success:/scenes/%s deleted]]", id) {
		t.Fatalf("DELETE: %v", deleted)
	}
	if _, v := do(t, srv, "PUT", u+"/groups/0/action", `{"scene":"`+id+`"}`); !hasError(v, ErrInvalidValue) {
		t.Fatalf("recall of a deleted scene: %v", v)
	}
	var log []string
	for _, c := range b.Commands() {
		log = append(log, c.Method+" "+c.Path)
	}
	want := []string{"POST /scenes", "PUT /groups/" + room + "/action", "PUT /scenes/" + id, "PUT /groups/0/action",
		"DELETE /scenes/" + id, "PUT /groups/0/action"}
	if fmt.Sprint(log) != fmt.Sprint(want) {
		t.Fatalf("command log %v, want %v", log, want)
	}
}

func TestCreateSceneRefusals(t *testing.T) {
	u := "/api/" + testUser
	cases := []struct {
		name, body string
		wantType   int
	}{
		{"no lights", `{"name":"x"}`, ErrMissingParameters},
		{"an unknown light", `{"name":"x","lights":["9"]}`, ErrInvalidValue},
		{"a lightstate for a light outside the scene", `{"lights":["1"],"lightstates":{"2":{"on":true}}}`, ErrInvalidValue},
		{"bri out of range", `{"lights":["1"],"lightstates":{"1":{"bri":300}}}`, ErrInvalidValue},
		{"a group scene of an unknown group", `{"type":"GroupScene","group":"7"}`, ErrInvalidValue},
		{"a group scene with lights", `{"type":"GroupScene","group":"1","lights":["1"]}`, ErrParameterNotAvail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := New(Options{Lights: []string{"a", "b"}, Usernames: []string{testUser}})
			b.AddGroup("Room", "1", "2")
			srv := newServer(t, b)
			if _, v := do(t, srv, "POST", u+"/scenes", tc.body); !hasError(v, tc.wantType) {
				t.Fatalf("answer %v, want error %d", v, tc.wantType)
			}
			if len(b.Scenes()) != 0 {
				t.Fatal("a refused scene was stored")
			}
		})
	}
}

// TestSceneBufferFull: 200 scenes, or 2048 lightstates, fill a bridge; a
// recyclable scene makes way, and with none error 402 refuses the next.
func TestSceneBufferFull(t *testing.T) {
	names := make([]string, 50)
	ids := make([]string, 50)
	for i := range names {
		names[i], ids[i] = fmt.Sprintf("bulb-%d", i+1), fmt.Sprint(i+1)
	}
	b := New(Options{Lights: names, Usernames: []string{testUser}})
	srv := newServer(t, b)
	u := "/api/" + testUser
	for i := range 40 { // 40 x 50 = 2000 lightstates
		if b.AddScene(fmt.Sprintf("user scene %d", i), ids...) == "" {
			t.Fatalf("scene %d refused", i)
		}
	}
	one := `{"lights":["1"],"recycle":true}`
	if _, v := do(t, srv, "POST", u+"/scenes", `{"lights":`+strings.ReplaceAll(fmt.Sprintf("%q", ids), `" "`, `","`)+`}`); !hasError(v, ErrSceneBufferFull) {
		t.Fatalf("50 more lightstates than 2048 allows: %v, want error %d", v, ErrSceneBufferFull)
	}
	for i := range 48 { // 2048 lightstates in all
		if _, v := do(t, srv, "POST", u+"/scenes", one); hasError(v, 0) {
			t.Fatalf("recyclable scene %d refused: %v", i, v)
		}
	}
	if _, v := do(t, srv, "POST", u+"/scenes", `{"lights":["1"]}`); hasError(v, 0) {
		t.Fatalf("a full bridge recycles a recyclable scene for a new one: %v", v)
	}
	for range 47 {
		do(t, srv, "POST", u+"/scenes", `{"lights":["1"]}`)
	}
	if _, v := do(t, srv, "POST", u+"/scenes", `{"lights":["1"]}`); !hasError(v, ErrSceneBufferFull) {
		t.Fatalf("nothing left to recycle: %v, want error %d", v, ErrSceneBufferFull)
	}
	if n := len(b.Scenes()); n != 40+48 {
		t.Fatalf("%d scenes, want 88", n)
	}
}

// TestTwoHundredScenes: the scene count is a limit of its own.
func TestTwoHundredScenes(t *testing.T) {
	b := New(Options{Lights: []string{"a"}, Usernames: []string{testUser}})
	srv := newServer(t, b)
	for i := range MaxScenes {
		if b.AddScene(fmt.Sprint(i), "1") == "" {
			t.Fatalf("scene %d refused", i)
		}
	}
	if _, v := do(t, srv, "POST", "/api/"+testUser+"/scenes", `{"lights":["1"]}`); !hasError(v, ErrSceneBufferFull) {
		t.Fatalf("scene %d: %v, want error %d", MaxScenes+1, v, ErrSceneBufferFull)
	}
}

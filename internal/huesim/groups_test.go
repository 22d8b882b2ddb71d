package huesim

import (
	"fmt"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/amimof/huego"
)

// TestTemporaryGroupLifecycle: create a group of some lights, act on it, and
// delete it, as Tether does for lights that want one state; every write is
// a group command in the log.
func TestTemporaryGroupLifecycle(t *testing.T) {
	b := New(Options{Lights: []string{"a", "b", "c"}, Usernames: []string{testUser}})
	unlimitedGroups(b)
	srv := newServer(t, b)
	u := "/api/" + testUser

	_, created := do(t, srv, "POST", u+"/groups", `{"name":"tether-1","lights":["1","3"],"type":"LightGroup"}`)
	id := created.([]any)[0].(map[string]any)["success"].(map[string]any)["id"].(string)
	_, g := do(t, srv, "GET", u+"/groups/"+id, "")
	if g.(map[string]any)["name"] != "tether-1" {
		t.Fatalf("GET /groups/%s: %v", id, g)
	}
	do(t, srv, "PUT", u+"/groups/"+id+"/action", `{"on":true,"bri":50}`)
	for id, want := range map[string]bool{"1": true, "2": false, "3": true} {
		if l, _ := b.Light(id); l.State.On != want || (want && l.State.Bri != 50) {
			t.Fatalf("light %s after the group action: %+v", id, l.State)
		}
	}
	_, deleted := do(t, srv, "DELETE", u+"/groups/"+id, "")
	if typ, _ := firstError(deleted); typ != 0 {
		t.Fatalf("DELETE: %v", deleted)
	}
	if len(b.Groups()) != 0 {
		t.Fatalf("groups left: %v", b.Groups())
	}
	if _, again := do(t, srv, "PUT", u+"/groups/"+id+"/action", `{"on":false}`); !hasError(again, ErrNotAvailable) {
		t.Fatalf("action on a deleted group: %v", again)
	}
	var paths []string
	for _, c := range b.Commands() {
		paths = append(paths, c.Method+" "+c.Path)
	}
	want := []string{"POST /groups", "PUT /groups/" + id + "/action", "DELETE /groups/" + id, "PUT /groups/" + id + "/action"}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Fatalf("command log %v, want %v", paths, want)
	}
}

func TestCreateGroupRefusals(t *testing.T) {
	u := "/api/" + testUser
	cases := []struct {
		name, body string
		wantType   int
	}{
		{"unknown light", `{"name":"x","lights":["9"]}`, ErrInvalidValue},
		{"no lights", `{"name":"x"}`, ErrMissingParameters},
		{"name too long", `{"name":"0123456789012345678901234567890123","lights":["1"]}`, ErrInvalidValue},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := New(Options{Lights: []string{"a"}, Usernames: []string{testUser}})
			srv := newServer(t, b)
			if _, v := do(t, srv, "POST", u+"/groups", tc.body); !hasError(v, tc.wantType) {
				t.Fatalf("answer %v, want error %d", v, tc.wantType)
			}
		})
	}
}

// TestGroupTableFull: a real bridge holds 64 groups and answers error 301
// for the next one.
func TestGroupTableFull(t *testing.T) {
	b := New(Options{Lights: []string{"a"}, Usernames: []string{testUser}})
	unlimitedGroups(b) // the table, not the rate, is under test
	srv := newServer(t, b)
	for i := range MaxGroups {
		if _, v := do(t, srv, "POST", "/api/"+testUser+"/groups", `{"lights":["1"]}`); hasError(v, 0) {
			t.Fatalf("group %d refused: %v", i+1, v)
		}
	}
	if _, v := do(t, srv, "POST", "/api/"+testUser+"/groups", `{"lights":["1"]}`); !hasError(v, ErrGroupTableFull) {
		t.Fatalf("group %d: %v, want error %d", MaxGroups+1, v, ErrGroupTableFull)
	}
}

// TestGroupWritesShareTheGroupBudget: creations, actions and deletions all
// take from the 1/s group bucket (burst 2), so a third write at once is 503.
func TestGroupWritesShareTheGroupBudget(t *testing.T) {
	b := New(Options{Lights: []string{"a"}, Usernames: []string{testUser}})
	srv := newServer(t, b)
	u := "/api/" + testUser
	do(t, srv, "POST", u+"/groups", `{"lights":["1"]}`)
	do(t, srv, "PUT", u+"/groups/1/action", `{"on":true}`)
	if status, v := do(t, srv, "DELETE", u+"/groups/1", ""); status != 503 || !hasError(v, ErrInternal) {
		t.Fatalf("third group write at once: HTTP %d %v, want 503 and error 901", status, v)
	}
}

// TestHuegoGroups drives the group calls with huego's own client.
func TestHuegoGroups(t *testing.T) {
	s, err := Start(Options{Lights: []string{"a", "b", "c"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	unlimitedGroups(s.Bridge) // huego's calls come back to back
	bridge := huego.New(s.Addr(), "u")

	res, err := bridge.CreateGroup(huego.Group{Name: "tether-x", Lights: []string{"2", "3"}, Type: "LightGroup"})
	if err != nil || res.Success["id"] != "1" {
		t.Fatalf("CreateGroup: %+v, %v", res, err)
	}
	groups, err := bridge.GetGroups()
	if err != nil || len(groups) != 1 || groups[0].Name != "tether-x" || groups[0].ID != 1 || len(groups[0].Lights) != 2 {
		t.Fatalf("GetGroups: %+v, %v", groups, err)
	}
	if _, err := bridge.SetGroupState(1, huego.State{On: true, Bri: 200}); err != nil {
		t.Fatalf("SetGroupState: %v", err)
	}
	if l, _ := s.Light("3"); !l.State.On || l.State.Bri != 200 {
		t.Fatalf("light 3 after the group action: %+v", l.State)
	}
	if l, _ := s.Light("1"); l.State.On {
		t.Fatal("light 1 is not in the group but was switched on")
	}
	if err := bridge.DeleteGroup(1); err != nil {
		t.Fatalf("DeleteGroup: %v", err)
	}
	if _, err := bridge.GetGroup(1); !isAPIError(err, ErrNotAvailable) {
		t.Fatalf("GetGroup after delete: %v, want error 3", err)
	}
}

// hasError reports whether the answer holds an error of type typ (typ 0:
// any error).
func hasError(v any, typ int) bool {
	got, _ := firstError(v)
	return got != 0 && (typ == 0 || got == typ)
}

func newServer(t *testing.T, b *Bridge) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(b.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// unlimitedGroups lifts the group budget for tests of something else.
func unlimitedGroups(b *Bridge) { b.SetGroupRate(math.Inf(1), 1) }

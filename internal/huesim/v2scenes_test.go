package huesim

import (
	"net/http"
	"testing"
)

// TestV2SceneWritesRefused: what openhue-api's ScenePost requires (group,
// actions, metadata.name of 1-32 characters, appdata of at most 16), an
// action's target being a light, and ScenePut having no group are
// checked, answered 400, and change nothing.
func TestV2SceneWritesRefused(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a"}})
	zone := s.AddZone("Z", "1")
	group := `"group":{"rid":"` + s.RoomIDV2(zone) + `","rtype":"zone"}`
	action := `"actions":[{"target":{"rid":"` + s.LightIDV2("1") + `","rtype":"light"},"action":{"on":{"on":true}}}]`
	for _, tc := range []struct{ name, body string }{
		{"no group", `{"metadata":{"name":"x"},` + action + `}`},
		{"no actions", `{"metadata":{"name":"x"},` + group + `}`},
		{"no name", `{"metadata":{},` + group + `,` + action + `}`},
		{"appdata too long", `{"metadata":{"name":"x","appdata":"12345678901234567"},` + group + `,` + action + `}`},
		{"an unknown group", `{"metadata":{"name":"x"},"group":{"rid":"nope","rtype":"zone"},` + action + `}`},
		{"a device as target", `{"metadata":{"name":"x"},` + group + `,"actions":[{"target":{"rid":"` + s.DeviceIDV2("1") + `","rtype":"device"},"action":{}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, v := v2Do(t, c, s, "POST", "/clip/v2/resource/scene", testUser, tc.body); st != http.StatusBadRequest {
				t.Errorf("%d %v, want 400", st, v)
			}
			if len(s.Scenes()) != 0 {
				t.Errorf("a refused POST stored a scene: %v", s.Scenes())
			}
		})
	}
	st, v := v2Do(t, c, s, "POST", "/clip/v2/resource/scene", testUser, `{"metadata":{"name":"x"},`+group+`,`+action+`}`)
	if st != http.StatusOK {
		t.Fatalf("a valid scene: %d %v", st, v)
	}
	rid := v["data"].([]any)[0].(map[string]any)["rid"].(string)
	if st, _ := v2Do(t, c, s, "PUT", "/clip/v2/resource/scene/"+rid, testUser, `{`+group+`}`); st != http.StatusBadRequest {
		t.Errorf("PUT with a group: %d, want 400 (regrouping means a new scene)", st)
	}
}

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

// TestV2SceneOptionsRefused: what the CLIP v2 API reference bounds in a
// scene (a palette of at most 9 colours, 1 colour temperature, 1 dimming,
// 3 effects; xy 0..1, brightness 0..100, mirek 153..500; speed 0..1) and
// an action's effect or gradient the light cannot show are answered 400 on
// POST and change nothing on PUT; the same within the bounds is stored.
func TestV2SceneOptionsRefused(t *testing.T) {
	s, c := startV2(t, Options{Lights: []string{"a"}})
	zone := s.AddZone("Z", "1")
	group := `"group":{"rid":"` + s.RoomIDV2(zone) + `","rtype":"zone"}`
	action := func(a string) string {
		return `"actions":[{"target":{"rid":"` + s.LightIDV2("1") + `","rtype":"light"},"action":{"on":{"on":true}` + a + `}}]`
	}
	colour := `{"color":{"xy":{"x":0.5,"y":0.4}},"dimming":{"brightness":50}}`
	colours := func(n int) string {
		out := colour
		for i := 1; i < n; i++ {
			out += "," + colour
		}
		return out
	}
	white := `{"color_temperature":{"mirek":300},"dimming":{"brightness":50}}`
	for _, tc := range []struct{ name, extra, action string }{
		{"10 colours", `"palette":{"color":[` + colours(10) + `]}`, ""},
		{"2 colour temperatures", `"palette":{"color_temperature":[` + white + `,` + white + `]}`, ""},
		{"2 dimming", `"palette":{"dimming":[{"brightness":1},{"brightness":2}]}`, ""},
		{"4 effects", `"palette":{"effects":[{"effect":"candle"},{"effect":"fire"},{"effect":"prism"},{"effect":"opal"}]}`, ""},
		{"xy past 1", `"palette":{"color":[{"color":{"xy":{"x":1.5,"y":0.4}},"dimming":{"brightness":50}}]}`, ""},
		{"brightness past 100", `"palette":{"color":[{"color":{"xy":{"x":0.5,"y":0.4}},"dimming":{"brightness":101}}]}`, ""},
		{"mirek past 500", `"palette":{"color_temperature":[{"color_temperature":{"mirek":600},"dimming":{"brightness":50}}]}`, ""},
		{"speed past 1", `"speed":1.5`, ""},
		{"an effect the light has not", "", `,"effects":{"effect":"candle"}`},
		{"a gradient on a light without one", "", `,"gradient":{"points":[{"color":{"xy":{"x":0.5,"y":0.4}}},{"color":{"xy":{"x":0.3,"y":0.3}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"metadata":{"name":"x"},` + group + `,` + action(tc.action)
			if tc.extra != "" {
				body += `,` + tc.extra
			}
			if st, v := v2Do(t, c, s, "POST", "/clip/v2/resource/scene", testUser, body+`}`); st != http.StatusBadRequest {
				t.Errorf("%d %v, want 400", st, v)
			}
			if len(s.Scenes()) != 0 {
				t.Errorf("a refused POST stored a scene: %v", s.Scenes())
			}
		})
	}
	st, v := v2Do(t, c, s, "POST", "/clip/v2/resource/scene", testUser, `{"metadata":{"name":"x"},`+group+`,`+action("")+
		`,"palette":{"color":[`+colours(9)+`],"color_temperature":[`+white+`],"dimming":[{"brightness":40}]},"speed":1,"auto_dynamic":true}`)
	if st != http.StatusOK {
		t.Fatalf("a scene within the bounds: %d %v", st, v)
	}
	for _, sc := range s.Scenes() {
		if len(sc.V2.Palette.Color) != 9 || len(sc.V2.Palette.ColorTemperature) != 1 || sc.V2.Speed != 1 || !sc.V2.AutoDynamic {
			t.Errorf("stored: %+v", sc.V2)
		}
	}
}

package huesim

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"sort"
	"testing"
)

// TestEachModelReportsOnlyItsFields: GET /lights reports, per light type, the
// state fields and capabilities.control of docs/hue-behaviour.md's table: no xy
// on a white bulb, no bri on a plug, an empty control on a plug.
func TestEachModelReportsOnlyItsFields(t *testing.T) {
	names, models := modelBulbs()
	b := New(Options{Lights: names, Models: models, Usernames: []string{testUser}})
	srv := httptest.NewServer(b.Handler())
	t.Cleanup(srv.Close)
	_, v := do(t, srv, "GET", "/api/"+testUser+"/lights", "")
	want := map[string][]string{
		TypeExtendedColor:    {"alert", "bri", "colormode", "ct", "effect", "hue", "mode", "on", "reachable", "sat", "xy"},
		TypeColor:            {"alert", "bri", "colormode", "effect", "hue", "mode", "on", "reachable", "sat", "xy"},
		TypeColorTemperature: {"alert", "bri", "colormode", "ct", "mode", "on", "reachable"},
		TypeDimmable:         {"alert", "bri", "mode", "on", "reachable"},
		TypeOnOffPlug:        {"alert", "mode", "on", "reachable"},
	}
	wantControl := map[string][]string{
		TypeExtendedColor:    {"colorgamut", "colorgamuttype", "ct", "maxlumen", "mindimlevel"},
		TypeColor:            {"colorgamut", "colorgamuttype", "maxlumen", "mindimlevel"},
		TypeColorTemperature: {"ct", "maxlumen", "mindimlevel"},
		TypeDimmable:         {"maxlumen", "mindimlevel"},
		TypeOnOffPlug:        nil,
	}
	for _, raw := range v.(map[string]any) {
		l := raw.(map[string]any)
		typ := l["type"].(string)
		if got := keys(l["state"]); !slices.Equal(got, want[typ]) {
			t.Errorf("%s (%s) reports state %v, want %v", l["name"], typ, got, want[typ])
		}
		control := l["capabilities"].(map[string]any)["control"]
		if got := keys(control); !slices.Equal(got, wantControl[typ]) {
			t.Errorf("%s (%s) reports control %v, want %v", l["name"], typ, got, wantControl[typ])
		}
	}
}

// TestCommandsPerModel: what a bulb does with each attribute, and the
// answer, attribute by attribute.
func TestCommandsPerModel(t *testing.T) {
	cases := []struct {
		model, body string
		wantErrors  []string // addresses of error 6, after the light id
		check       func(LightState) bool
	}{
		{"LTW001", `{"on":true,"ct":500}`, nil, func(s LightState) bool { return s.CT == 454 && s.ColorMode == "ct" }},
		{"LTW001", `{"on":true,"xy":[0.3,0.3],"bri":10}`, []string{"xy"}, func(s LightState) bool { return s.On && s.Bri == 10 }},
		{"GL-C-006P", `{"on":true,"ct":500}`, nil, func(s LightState) bool { return s.CT == 495 }},
		{"LLC010", `{"on":true,"ct":300,"xy":[0.3,0.3]}`, []string{"ct"}, func(s LightState) bool { return s.ColorMode == "xy" }},
		{"LWB010", `{"on":true,"hue":0,"sat":254,"bri":40}`, []string{"hue", "sat"}, func(s LightState) bool { return s.Bri == 40 }},
		{"LOM001", `{"on":true,"bri":100}`, []string{"bri"}, func(s LightState) bool { return s.On }},
		{"LCT015", `{"on":true,"xy":[0.8,0.2]}`, nil, func(s LightState) bool { return s.XY[0] < 0.6916 && s.XY[0] > 0.6 }},
		{"LCT001", `{"on":true,"xy":[0.17,0.7]}`, nil, func(s LightState) bool { return s.XY[1] <= 0.518 }},
		{"LCT015", `{"on":true,"xy":[0.4,0.4]}`, nil, func(s LightState) bool { return s.XY == [2]float64{0.3999, 0.3999} }},
	}
	for _, tc := range cases {
		t.Run(tc.model+" "+tc.body, func(t *testing.T) {
			b := New(Options{Lights: []string{"bulb"}, Models: map[string]string{"bulb": tc.model}, Usernames: []string{testUser}})
			srv := httptest.NewServer(b.Handler())
			t.Cleanup(srv.Close)
			_, v := do(t, srv, "PUT", "/api/"+testUser+"/lights/1/state", tc.body)
			var refused []string
			var body map[string]json.RawMessage
			_ = json.Unmarshal([]byte(tc.body), &body)
			successes := 0
			for _, el := range v.([]any) {
				if e, ok := el.(map[string]any)["error"].(map[string]any); ok {
					if int(e["type"].(float64)) != ErrParameterNotAvail {
						t.Fatalf("error %v", e)
					}
					refused = append(refused, e["address"].(string)[len("/lights/1/state/"):])
				} else {
					successes++
				}
			}
			sort.Strings(refused)
			if !slices.Equal(refused, tc.wantErrors) || successes+len(refused) != len(body) {
				t.Fatalf("answer %v: refused %v, want %v, one entry per attribute", v, refused, tc.wantErrors)
			}
			if l, _ := b.Light("1"); !tc.check(l.State) {
				t.Fatalf("state after %s: %+v", tc.body, l.State)
			}
		})
	}
}

// TestOmitState: a bridge that leaves a field out for a bulb.
func TestOmitState(t *testing.T) {
	b, srv := newTestBridge(t)
	if err := b.OmitState("1", "ct"); err != nil {
		t.Fatal(err)
	}
	_, v := do(t, srv, "GET", "/api/"+testUser+"/lights/1", "")
	if _, ok := v.(map[string]any)["state"].(map[string]any)["ct"]; ok {
		t.Fatal("ct still reported")
	}
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

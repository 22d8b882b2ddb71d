package model

import (
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"
)

func TestCompare(t *testing.T) {
	on := LightState{On: true, Bri: ptr.To(127), CT: ptr.To(366), ColorMode: "ct", XY: &[2]float64{0.3, 0.4}, Reachable: true}
	off := on
	off.On = false
	cases := []struct {
		name     string
		want     Desired
		got      LightState
		wantBody string // "" means no difference
	}{
		{"matches", Desired{On: true, Bri: ptr.To(127)}, on, ""},
		{"turn on carries on:true with brightness", Desired{On: true, Bri: ptr.To(254)}, off, `{"on":true,"bri":254}`},
		{"brightness only still sends on:true", Desired{On: true, Bri: ptr.To(254)}, on, `{"on":true,"bri":254}`},
		{"off ignores brightness and colour", Desired{On: false, Bri: ptr.To(10), CT: ptr.To(200)}, off, ""},
		{"switch off sends only on:false", Desired{On: false, Bri: ptr.To(10)}, on, `{"on":false}`},
		{"ct already shown", Desired{On: true, CT: ptr.To(366)}, on, ""},
		{"ct differs", Desired{On: true, CT: ptr.To(200)}, on, `{"on":true,"ct":200}`},
		{"xy within bridge rounding", Desired{On: true, XY: &[2]float64{0.30004, 0.4}}, withMode(on, "xy"), ""},
		{"xy in another colour mode", Desired{On: true, XY: &[2]float64{0.3, 0.4}}, on, `{"on":true,"xy":[0.3,0.4]}`},
		{"hue/sat zero is a real red-white", Desired{On: true, Hue: ptr.To(0), Sat: ptr.To(0)}, on, `{"on":true,"hue":0,"sat":0}`},
		{"transition travels with a change", Desired{On: true, Bri: ptr.To(1), Transition: ptr.To(0)}, on, `{"on":true,"bri":1,"transitiontime":0}`},
		{"transition alone is no change", Desired{On: true, Transition: ptr.To(20)}, on, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.want, tc.got)
			if tc.wantBody == "" {
				if d != nil {
					t.Fatalf("want no difference, got %s", d)
				}
				return
			}
			if d == nil {
				t.Fatalf("want %s, got no difference", tc.wantBody)
			}
			body, _ := json.Marshal(d.Body)
			if string(body) != tc.wantBody || d.String() == "" {
				t.Fatalf("body %s (%q), want %s", body, d.String(), tc.wantBody)
			}
		})
	}
}

func withMode(s LightState, mode string) LightState {
	s.ColorMode = mode
	return s
}

func TestStateApplied(t *testing.T) {
	s := LightState{On: false, Bri: ptr.To(10), ColorMode: "ct", CT: ptr.To(300)}
	got := s.Applied(StateBody{On: ptr.To(true), Bri: ptr.To(200), XY: &[2]float64{0.1, 0.2}})
	if !got.On || *got.Bri != 200 || got.ColorMode != "xy" || *got.XY != [2]float64{0.1, 0.2} || *got.CT != 300 {
		t.Fatalf("applied: %+v", got)
	}
	if Compare(Desired{On: true, Bri: ptr.To(200), XY: &[2]float64{0.1, 0.2}}, got) != nil {
		t.Fatal("the cache after a successful PUT still reports drift")
	}
}

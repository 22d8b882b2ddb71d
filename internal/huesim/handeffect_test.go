package huesim

import (
	"net/http"
	"strings"
	"testing"
)

// TestControlEffect: the control API sets the effect a bulb plays as the
// Hue app would: a hand change the watchers hear, on a bulb that lists the
// effect; an effect the bulb does not list, and a bulb without effects,
// are refused and change nothing.
func TestControlEffect(t *testing.T) {
	s, err := Start(Options{Lights: []string{"fireplace", "lamp"}, Models: map[string]string{"fireplace": "LCA001", "lamp": "LCT015"},
		Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctl, stop, err := s.ServeControl("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	var hands []HandChange
	s.OnHandChange(func(c HandChange) { hands = append(hands, c) })

	for _, tc := range []struct {
		name, light, body string
		wantCode          int
		wantEffect        string // the light's V2Effect after
		wantHand          bool
	}{
		{"a candle on a bulb with effects", "1", `{"effect":"candle"}`, http.StatusOK, "candle", true},
		{"stopped by hand", "1", `{"effect":"no_effect"}`, http.StatusOK, "no_effect", true},
		{"an effect the bulb does not list", "1", `{"effect":"cosmos"}`, http.StatusBadRequest, "no_effect", false},
		{"a bulb without effects", "2", `{"effect":"candle"}`, http.StatusBadRequest, "", false},
		{"no such bulb", "9", `{"effect":"candle"}`, http.StatusBadRequest, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hands = nil
			req, _ := http.NewRequest(http.MethodPut, "http://"+ctl+"/lights/"+tc.light+"/effect", strings.NewReader(tc.body))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.wantCode {
				t.Fatalf("HTTP %d, want %d", res.StatusCode, tc.wantCode)
			}
			if l, _ := s.Light(tc.light); l.State.V2Effect != tc.wantEffect {
				t.Errorf("effect %q, want %q", l.State.V2Effect, tc.wantEffect)
			}
			if (len(hands) == 1) != tc.wantHand {
				t.Errorf("hand changes heard: %+v, want one: %t", hands, tc.wantHand)
			}
		})
	}
}

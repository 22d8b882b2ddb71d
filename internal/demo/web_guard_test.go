package demo

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/huesim"
)

// TestHueAppControlTakesOnlyThePagesOwnWrites: the demo page's Hue app
// control switches a bulb only for a request its own page makes: JSON,
// from its own origin, to its own address. A site open in the presenter's
// browser (a text/plain POST from its origin, with its Host after a DNS
// rebinding) switches nothing, and the rebound name reads nothing either.
// The bulb (the hallway, on) counts what reached it: its state.
func TestHueAppControlTakesOnlyThePagesOwnWrites(t *testing.T) {
	sim, err := huesim.Start(huesim.Options{Lights: []string{"hallway"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	addr, stop, err := servePage("127.0.0.1:0", &page{bridge: sim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	own := "http://" + addr
	hallway, _ := sim.LightByName("hallway")
	switchOn := func() {
		if err := sim.ChangeLight(hallway.ID, func(st *huesim.LightState) { st.On, st.Bri = true, 200 }); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name        string
		method      string
		host        string // "" for the page's own address
		origin      string
		contentType string
		want        int
		switchesOff bool
	}{
		{"text/plain from another site, rebound", http.MethodPost, "evil.example", "https://evil.example", "text/plain", http.StatusForbidden, false},
		{"text/plain from another site", http.MethodPost, "", "https://evil.example", "text/plain", http.StatusUnsupportedMediaType, false},
		{"a form from another site", http.MethodPost, "", "https://evil.example", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType, false},
		{"text/plain from the page's origin", http.MethodPost, "", own, "text/plain;charset=UTF-8", http.StatusUnsupportedMediaType, false},
		{"JSON from another site", http.MethodPost, "", "https://evil.example", "application/json", http.StatusForbidden, false},
		{"JSON without an origin", http.MethodPost, "", "", "application/json", http.StatusForbidden, false},
		{"JSON from the page's origin, rebound", http.MethodPost, "evil.example:80", "http://evil.example:80", "application/json", http.StatusForbidden, false},
		{"JSON from the page's origin", http.MethodPost, "", own, "application/json", http.StatusOK, true},
		{"a read, rebound", http.MethodGet, "evil.example", "", "", http.StatusForbidden, false},
		{"the bulbs, rebound", http.MethodGet, "evil.example", "", "", http.StatusForbidden, false},
		{"a read at the page's address", http.MethodGet, "", "", "", http.StatusOK, false},
		{"a read at localhost", http.MethodGet, "localhost:8000", "", "", http.StatusOK, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			switchOn()
			path := "/hue-app/lights/hallway"
			if tc.method == http.MethodGet {
				path = "/"
				if strings.HasPrefix(tc.name, "the bulbs") {
					path = "/bridge/state.json"
				}
			}
			req, err := http.NewRequest(tc.method, own+path, strings.NewReader(`{"on": false}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("HTTP %d, want %d", res.StatusCode, tc.want)
			}
			l, _ := sim.LightByName("hallway")
			if off := !l.State.On; off != tc.switchesOff {
				t.Errorf("the hallway bulb is off: %v, want %v", off, tc.switchesOff)
			}
		})
	}
}

package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

func v2For(t *testing.T, sim *huesim.Server, user string, trust Trust) Client {
	t.Helper()
	if trust.CABundle == nil && !trust.InsecureSkipVerify {
		trust.CABundle = sim.CACertPEM()
	}
	c, err := NewClientV2(sim.TLSAddr(), user, 2*time.Second, trust)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func byID(lights []model.Light) map[string]model.Light {
	out := map[string]model.Light{}
	for _, l := range lights {
		out[l.ID] = l
	}
	return out
}

// TestV2ClientReadsWhatV1Reads reads one simulated bridge with a bulb of
// every model through both clients: the same lights, ids (v1 ids through
// id_v1), names, models, types, capabilities and state, but for what v2
// does not have (hue/sat).
func TestV2ClientReadsWhatV1Reads(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{})
	// Ids follow the sorted model ids: 3 is an LCT001, 8 an LTW001.
	_ = sim.SetReachable("8", false)
	_ = sim.ChangeLight("3", func(s *huesim.LightState) { s.On, s.Bri, s.ColorMode, s.XY = true, 200, "xy", [2]float64{0.3, 0.4} })
	ctx := context.Background()
	v1, err := NewClient(sim.Addr(), huetest.User, 2*time.Second).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := v2For(t, sim, huetest.User, Trust{}).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v1) != len(v2) {
		t.Fatalf("v1 %d lights, v2 %d", len(v1), len(v2))
	}
	v2ByID := byID(v2)
	for _, a := range v1 {
		b, ok := v2ByID[a.ID]
		if !ok {
			t.Fatalf("light %s (%s) missing on v2", a.ID, a.Name)
		}
		a.Capabilities.HueSat = false
		a.State.Hue, a.State.Sat = nil, nil
		if a.State.ColorMode == "hs" {
			a.State.ColorMode = "xy"
		}
		if a.Capabilities.ColorTemperature == nil || a.State.ColorMode != "ct" && a.Capabilities.Color {
			a.State.CT = nil // v2: mirek null outside ct mode
		}
		if diff := compareLights(a, b); diff != "" {
			t.Errorf("%s (%s): %s\nv1 %+v %s\nv2 %+v %s", a.ID, a.ModelID, diff, a.State, show(a.State.CT), b.State, show(b.State.CT))
		}
	}
}

// compareLights names the first difference between two lights.
func compareLights(a, b model.Light) string {
	switch {
	case a.Name != b.Name || a.ModelID != b.ModelID || a.Type != b.Type:
		return "identity " + a.Name + "/" + a.ModelID + "/" + a.Type + " vs " + b.Name + "/" + b.ModelID + "/" + b.Type
	case show(ptrTo(a.Capabilities.Dimmable)) != show(ptrTo(b.Capabilities.Dimmable)) || a.Capabilities.Color != b.Capabilities.Color:
		return "capabilities"
	case (a.Capabilities.ColorTemperature == nil) != (b.Capabilities.ColorTemperature == nil) ||
		a.Capabilities.ColorTemperature != nil && *a.Capabilities.ColorTemperature != *b.Capabilities.ColorTemperature && a.ModelID != "GL-C-006P":
		return "colour temperature range"
	case (a.Capabilities.Gamut == nil) != (b.Capabilities.Gamut == nil) || a.Capabilities.Gamut != nil && *a.Capabilities.Gamut != *b.Capabilities.Gamut:
		return "gamut"
	case a.State.On != b.State.On || a.State.Reachable != b.State.Reachable || show(a.State.Bri) != show(b.State.Bri) ||
		show(a.State.CT) != show(b.State.CT) || a.State.ColorMode != b.State.ColorMode:
		return "state"
	case (a.State.XY == nil) != (b.State.XY == nil) || a.State.XY != nil && *a.State.XY != *b.State.XY:
		return "xy"
	}
	return ""
}

// show prints a reported value, or "unknown" for one the bridge left out.
func show(v *int) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprint(*v)
}

func ptrTo(b bool) *int {
	if b {
		return ptr.To(1)
	}
	return ptr.To(0)
}

// TestV2ClientCommands sends commands in Tether's units and reads them
// back in v2's: brightness, xy, colour temperature, a transition, and
// hue/sat sent as xy.
func TestV2ClientCommands(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"colour", "ambiance"}, Models: map[string]string{"ambiance": "LTW001"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	steps := []struct {
		id    string
		body  model.StateBody
		check func(huesim.LightState) bool
	}{
		{"1", model.StateBody{On: ptr.To(true), Bri: ptr.To(1), TransitionTime: ptr.To(0)}, func(s huesim.LightState) bool { return s.On && s.Bri == 1 }},
		{"1", model.StateBody{On: ptr.To(true), Bri: ptr.To(127), XY: &[2]float64{0.2, 0.3}, TransitionTime: ptr.To(15)},
			func(s huesim.LightState) bool {
				return s.Bri == 127 && s.ColorMode == "xy" && model.NearXY(s.XY, [2]float64{0.2, 0.3})
			}},
		{"1", model.StateBody{On: ptr.To(true), Hue: ptr.To(0), Sat: ptr.To(254)},
			func(s huesim.LightState) bool { return s.ColorMode == "xy" && s.XY[0] > 0.6 }},
		{"2", model.StateBody{On: ptr.To(true), Bri: ptr.To(254), CT: ptr.To(454)}, func(s huesim.LightState) bool { return s.Bri == 254 && s.CT == 454 }},
	}
	for i, st := range steps {
		res, err := c.SetLightState(ctx, st.id, st.body)
		if err != nil || len(res.Refused) > 0 {
			t.Fatalf("step %d: %v %v", i, err, res.Refused)
		}
		l, _ := sim.Light(st.id)
		if !st.check(l.State) {
			t.Errorf("step %d: bulb %+v", i, l.State)
		}
	}
	// A mirek beyond the bulb's schema: v2 answers 400, named as a refused
	// colour temperature.
	res, err := c.SetLightState(ctx, "2", model.StateBody{On: ptr.To(true), CT: ptr.To(500)})
	if err != nil || len(res.Refused) != 1 || res.Refused[0].Param != "ct" || res.Refused[0].Type != TypeInvalidValue {
		t.Fatalf("mirek 500 on a 153-454 bulb: %v %+v", err, res)
	}
	last := sim.Commands()[len(sim.Commands())-1]
	if last.Status != http.StatusBadRequest || !last.ForLight("2") {
		t.Errorf("last command %+v", last)
	}
	var trans map[string]any
	for _, cmd := range sim.Commands() {
		if strings.Contains(string(cmd.Body), "duration") {
			trans = map[string]any{"body": string(cmd.Body)}
		}
	}
	if trans == nil || !strings.Contains(trans["body"].(string), `"duration":1500`) {
		t.Errorf("transitiontime 15 is not dynamics.duration 1500: %v", trans)
	}
}

// TestV2ClientTrust: the certificate is checked against the Hue roots and
// caBundle, and its name against the bridge id; skipping is explicit.
func TestV2ClientTrust(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}, BridgeID: "001788FFFE0000AA"})
	other := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}, BridgeID: "001788FFFE0000BB", CertificateName: "001788fffe0000cc"})
	ctx := context.Background()
	cases := []struct {
		name   string
		sim    *huesim.Server
		trust  Trust
		reason string // "" for success
		check  string
	}{
		{"the simulator's CA and its id", sim, Trust{CABundle: sim.CACertPEM(), BridgeID: "001788FFFE0000AA"}, "", CertificateVerified},
		{"id in another case", sim, Trust{CABundle: sim.CACertPEM(), BridgeID: "001788fffe0000aa"}, "", CertificateVerified},
		{"no caBundle: only the Hue roots", sim, Trust{CABundle: []byte{}}, ReasonCertificateUntrusted, ""},
		{"another CA", sim, Trust{CABundle: other.CACertPEM()}, ReasonCertificateUntrusted, ""},
		{"another bridge's id", sim, Trust{CABundle: sim.CACertPEM(), BridgeID: "001788FFFE0000BB"}, ReasonCertificateMismatch, ""},
		{"a certificate naming another bridge than it says it is", other, Trust{CABundle: other.CACertPEM()}, ReasonCertificateMismatch, ""},
		{"skipped, as asked", other, Trust{InsecureSkipVerify: true}, "", CertificateSkipped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			trust := tc.trust
			if trust.CABundle != nil && len(trust.CABundle) == 0 {
				trust.CABundle = nil
			}
			c, err := NewClientV2(tc.sim.TLSAddr(), huetest.User, 2*time.Second, trust)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := c.Config(ctx)
			if err == nil {
				err = checkBridgeID(CertificateOf(c), cfg.BridgeID)
			}
			var certErr *CertificateError
			switch {
			case tc.reason == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.reason != "" && (!errors.As(err, &certErr) || certErr.Reason != tc.reason):
				t.Fatalf("got %v, want a %s", err, tc.reason)
			case tc.reason == "" && CertificateOf(c).Check != tc.check:
				t.Fatalf("check %q, want %q", CertificateOf(c).Check, tc.check)
			}
		})
	}
}

// TestV2ClientKeepsToThreeRequests: however many callers, the client has
// at most 3 requests open at the bridge, which answers a fourth with 429.
func TestV2ClientKeepsToThreeRequests(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{})
	sim.SetDelay(50 * time.Millisecond)
	c := v2For(t, sim, huetest.User, Trust{})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Lights(context.Background()); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := sim.TooManyRequests(); n != 0 {
		t.Errorf("the bridge refused %d requests as too many at once", n)
	}
}

// TestV2ClientBacksOffWhenBusy: past the bridge's command budget it answers
// 429; the client waits and tries again, then gives up with error 901,
// which the adapter turns into BridgeBusy with a delay.
func TestV2ClientBacksOffWhenBusy(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	if _, err := c.Lights(ctx); err != nil {
		t.Fatal(err)
	}
	sim.SetRate(2, 1)
	var refusals int
	for range 3 {
		if _, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true)}); err != nil {
			t.Fatalf("a command the bridge takes after a short wait failed: %v", err)
		}
	}
	refusals = sim.TooManyRequests()
	if refusals == 0 {
		t.Fatal("the bridge never said 429: the test shows nothing")
	}
	sim.SetRate(0.01, 1)
	_, _ = c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true)}) // takes the token, if one is left
	refusals = sim.TooManyRequests()
	_, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true)})
	if ErrorType(err) != TypeInternal {
		t.Fatalf("a bridge that stays busy: %v", err)
	}
	if got := sim.TooManyRequests() - refusals; got != 1+v2BusyRetries {
		t.Errorf("%d attempts at a busy bridge, want %d", got, 1+v2BusyRetries)
	}
}

// TestV2Pairing asks a v2 bridge for a username and client key over HTTPS.
func TestV2Pairing(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}})
	c := v2For(t, sim, "", Trust{})
	ctx := context.Background()
	if _, err := c.Pair(ctx, "tether#test"); ErrorType(err) != TypeLinkButton {
		t.Fatalf("before the button: %v", err)
	}
	sim.PressLinkButton()
	cred, err := c.Pair(ctx, "tether#test")
	if err != nil || cred.Username == "" || cred.ClientKey == "" {
		t.Fatalf("pairing: %+v %v", cred, err)
	}
	cfg, err := v2For(t, sim, cred.Username, Trust{}).Config(ctx)
	if err != nil || !cfg.Authorized {
		t.Fatalf("the new key: %+v %v", cfg, err)
	}
	if cfg, _ := v2For(t, sim, "nobody", Trust{}).Config(ctx); cfg.Authorized {
		t.Fatal("an unknown key is authorised")
	}
}

// TestV2ClientPinsACABundleCertificate: below a Hue root, a client pinned
// to the certificate its probe checked refuses another certificate the
// same caBundle verifies for the same id, and reports which proof it has.
func TestV2ClientPinsACABundleCertificate(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}})
	ctx := context.Background()
	probe, _, err := ProbeV2(ctx, sim.TLSAddr(), 2*time.Second, Trust{CABundle: sim.CACertPEM(), BridgeID: sim.BridgeID()})
	if err != nil {
		t.Fatal(err)
	}
	info := CertificateOf(probe)
	if info.Check != CertificateVerified || info.HueRoot || info.Fingerprint == "" {
		t.Fatalf("the probe's certificate: %+v", info)
	}
	for _, tc := range []struct {
		pin    string
		refuse bool
	}{{info.Fingerprint, false}, {strings.Repeat("0", 64), true}} {
		c := v2For(t, sim, huetest.User, Trust{BridgeID: sim.BridgeID(), PinSHA256: tc.pin})
		_, err := c.Lights(ctx)
		var certErr *CertificateError
		if refused := errors.As(err, &certErr); refused != tc.refuse {
			t.Errorf("pin %.8s: %v", tc.pin, err)
		}
	}
}

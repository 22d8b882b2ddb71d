package foreignv2

import (
	"context"
	"net/http"
	"strings"
	"testing"

	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoSetsASpeed: openhue-go's generated types decode the
// simulator's dynamics object (status none, speed not valid while nothing
// plays); its LightPut.Dynamics.Speed with an effect sets a speed that
// openhue-go then reads back as valid; and its generated client gets 400
// for a speed above 1. This proves the names Tether reads and writes
// (dynamics.speed, dynamics.speed_valid) and the 0..1 range are those of
// Signify's API description as openhue transcribes it; it does not prove
// how a real bulb plays a speed, nor whether a bridge keeps it in steps.
func TestOpenhueGoSetsASpeed(t *testing.T) {
	sim := startBridge(t)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	id := sim.LightIDV2(v1ID(t, sim, "LCA001"))
	dynamicsOf := func() string {
		t.Helper()
		lights, err := home.GetLights()
		if err != nil {
			t.Fatal(err)
		}
		d := lights[id].Dynamics
		if d == nil || d.Status == nil || d.Speed == nil || d.SpeedValid == nil {
			t.Fatalf("the LCA001's dynamics as openhue-go decodes them: %+v", d)
		}
		if *d.SpeedValid {
			return string(*d.Status) + " valid"
		}
		return string(*d.Status) + " not valid"
	}
	if got := dynamicsOf(); got != "none not valid" {
		t.Fatalf("a light playing nothing: %s, want none not valid", got)
	}

	on, candle, speed := true, openhue.SupportedEffectsCandle, float32(0.5)
	if err := home.UpdateLight(id, openhue.LightPut{On: &openhue.On{On: &on}, Effects: &openhue.Effects{Effect: &candle},
		Dynamics: &openhue.LightDynamics{Speed: &speed}}); err != nil {
		t.Fatal(err)
	}
	if got := dynamicsOf(); got != "none valid" {
		t.Fatalf("playing candle: %s, want the speed valid", got)
	}
	lights, _ := home.GetLights()
	if s := *lights[id].Dynamics.Speed; s != 0.5 {
		t.Fatalf("openhue-go reads speed %g, want 0.5", s)
	}

	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	tooFast := float32(1.5)
	res, err := c.UpdateLightWithResponse(context.Background(), id, openhue.LightPut{Dynamics: &openhue.LightDynamics{Speed: &tooFast}})
	if err != nil || res.StatusCode() != http.StatusBadRequest || !strings.Contains(string(res.Body), "dynamics.speed") {
		t.Fatalf("speed 1.5: %v %d %s, want 400 naming dynamics.speed", err, res.StatusCode(), res.Body)
	}
}

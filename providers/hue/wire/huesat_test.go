package wire

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestHueSatAfterTheBridgesConversion sends hue/sat to colour bulbs of
// every gamut through the v1 client and reads them back: the simulator,
// like a bridge, reports hue/sat derived from the xy the bulb took, so a
// round trip need not return what was sent. Tether's comparison takes the
// bridge's answer as the colour asked for (no drift, nothing to resend),
// and still sees a colour changed from outside.
func TestHueSatAfterTheBridgesConversion(t *testing.T) {
	models := []string{"LCT015", "LCT001", "LLC010"}
	opts := huesim.Options{Models: map[string]string{}, CommandsPerSecond: 1000, Burst: 1000}
	for _, m := range models {
		opts.Lights = append(opts.Lights, m)
		opts.Models[m] = m
	}
	sim := huetest.StartSim(t, opts)
	c := NewClient(sim.Addr(), huetest.User, 2*time.Second)
	ctx := context.Background()
	roundTripsDiffer := 0
	for i, m := range models {
		id := fmt.Sprint(i + 1)
		for _, hs := range [][2]int{{0, 254}, {10000, 200}, {25500, 254}, {46920, 254}, {49333, 209}, {56100, 120}, {65535, 60}, {12000, 0}} {
			if _, err := c.SetLightState(ctx, id, model.StateBody{On: ptr.To(true), Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}); err != nil {
				t.Fatal(err)
			}
			lights, err := c.Lights(ctx)
			if err != nil {
				t.Fatal(err)
			}
			l := byID(lights)[id]
			if *l.State.Hue != hs[0] || *l.State.Sat != hs[1] {
				roundTripsDiffer++
			}
			want := model.Project(model.Desired{On: true, Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}, l).Want
			if d := model.Compare(want, l.State); d != nil {
				t.Errorf("%s hue/sat %v, reported %d/%d xy %v: %s", m, hs, *l.State.Hue, *l.State.Sat, *l.State.XY, d)
			}
			if !l.State.Shows(model.StateBody{Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}, l.Capabilities.Gamut) {
				t.Errorf("%s hue/sat %v: a read after the command does not show it (the stall breaker would count it)", m, hs)
			}
		}
		// Changed from outside to another colour: that is drift.
		_ = sim.ChangeLight(id, func(s *huesim.LightState) { s.XY, s.ColorMode = [2]float64{0.2, 0.5}, "xy" })
		lights, _ := c.Lights(ctx)
		l := byID(lights)[id]
		want := model.Project(model.Desired{On: true, Hue: ptr.To(0), Sat: ptr.To(254)}, l).Want
		if model.Compare(want, l.State) == nil {
			t.Errorf("%s: green reads as the red asked for", m)
		}
	}
	if roundTripsDiffer == 0 {
		t.Fatal("every round trip returned what was sent: the test shows nothing")
	}
}

package wire

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
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
	sim := startSim(t, opts)
	c := NewClient(sim.Addr(), simUser, 2*time.Second)
	ctx := context.Background()
	roundTripsDiffer := 0
	for i, model := range models {
		id := fmt.Sprint(i + 1)
		for _, hs := range [][2]int{{0, 254}, {10000, 200}, {25500, 254}, {46920, 254}, {49333, 209}, {56100, 120}, {65535, 60}, {12000, 0}} {
			if _, err := c.SetLightState(ctx, id, StateBody{On: ptr.To(true), Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}); err != nil {
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
			want := Project(Desired{On: true, Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}, l).Want
			if d := Compare(want, l.State); d != nil {
				t.Errorf("%s hue/sat %v, reported %d/%d xy %v: %s", model, hs, *l.State.Hue, *l.State.Sat, *l.State.XY, d)
			}
			if !l.State.Shows(StateBody{Hue: ptr.To(hs[0]), Sat: ptr.To(hs[1])}, l.Capabilities.Gamut) {
				t.Errorf("%s hue/sat %v: a read after the command does not show it (the stall breaker would count it)", model, hs)
			}
		}
		// Changed from outside to another colour: that is drift.
		_ = sim.ChangeLight(id, func(s *huesim.LightState) { s.XY, s.ColorMode = [2]float64{0.2, 0.5}, "xy" })
		lights, _ := c.Lights(ctx)
		l := byID(lights)[id]
		want := Project(Desired{On: true, Hue: ptr.To(0), Sat: ptr.To(254)}, l).Want
		if Compare(want, l.State) == nil {
			t.Errorf("%s: green reads as the red asked for", model)
		}
	}
	if roundTripsDiffer == 0 {
		t.Fatal("every round trip returned what was sent: the test shows nothing")
	}
}

// TestHueSatToXY: the conversion against Philips' formulas' known points
// and the bulbs' gamuts.
func TestHueSatToXY(t *testing.T) {
	c := v1Gamuts["C"]
	cases := []struct {
		name     string
		hue, sat int
		g        *Gamut
		want     [2]float64
		tol      float64
	}{
		// sRGB red through the Wide RGB D65 matrix (Philips' example code).
		{"red, any colour", 0, 254, nil, [2]float64{0.7006, 0.2993}, 1e-4},
		{"white is D65-ish", 0, 0, nil, [2]float64{0.3227, 0.3290}, 2e-4},
		{"red on gamut C: its nearest point", 0, 254, &c, c.nearest([2]float64{0.7006, 0.2993}), 1e-4},
		{"the wheel wraps", 65536, 254, nil, [2]float64{0.7006, 0.2993}, 1e-4},
	}
	for _, tc := range cases {
		got := hsToXY(tc.hue, tc.sat, tc.g)
		if xyDistance(got, tc.want) > tc.tol {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

package wire

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2ClientGradient: the v2 client reads a gradient light's feature
// (points_capable, mode_values) and the gradient it shows, none for a
// light without a gradient object; it sends a gradient as points of
// color.xy with its mode, which the bridge then shows; a 400 (more points
// than the light shows, a light without the feature) is that attribute
// refused; the v1 client reads no gradient.
func TestV2ClientGradient(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"strip", "plain"}, Models: map[string]string{"strip": "LCX004"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	lights, err := c.Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(lights)
	strip, plain := got["1"], got["2"]
	caps := strip.Capabilities.Gradient
	if caps == nil || caps.PointsCapable != 5 || !slices.Contains(caps.Modes, "random_pixelated") ||
		strip.State.Gradient == nil || len(strip.State.Gradient.Points) != 0 || strip.State.Gradient.Mode != "interpolated_palette" {
		t.Fatalf("LCX004 read with gradient %+v, showing %+v", caps, strip.State.Gradient)
	}
	if plain.Capabilities.Gradient != nil || plain.State.Gradient != nil {
		t.Fatalf("LCT015 has a gradient: %+v", plain.Capabilities.Gradient)
	}

	want := model.Gradient{Points: [][2]float64{{0.3, 0.3}, {0.4, 0.35}, {0.2, 0.1}}, Mode: "random_pixelated"}
	res, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true), Gradient: &want})
	if err != nil || len(res.Refused) > 0 || res.Accepted.Gradient == nil {
		t.Fatalf("a gradient on the LCX004: %v %+v", err, res)
	}
	lights, _ = c.Lights(ctx)
	if shown := byID(lights)["1"].State.Gradient; shown == nil || !want.Shows(*shown) {
		t.Fatalf("read back as %+v, want %s", shown, want)
	}

	six := model.Gradient{Points: make([][2]float64, 6)}
	for i := range six.Points {
		six.Points[i] = [2]float64{0.3, 0.3}
	}
	for _, tc := range []struct {
		id   string
		body model.Gradient
	}{{"1", six}, {"2", want}} {
		res, err := c.SetLightState(ctx, tc.id, model.StateBody{On: ptr.To(true), Gradient: &tc.body})
		if err != nil || len(res.Refused) != 1 || res.Refused[0].Param != "gradient" {
			t.Errorf("light %s, %d points: %v %+v, want gradient refused", tc.id, len(tc.body.Points), err, res)
		}
	}

	v1, err := NewClient(sim.Addr(), huetest.User, DefaultCallTimeout).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range v1 {
		if l.Capabilities.Gradient != nil || l.State.Gradient != nil {
			t.Errorf("v1 light %s read with a CLIP v2 gradient", l.ID)
		}
	}
}

// TestGradientPutShape: points go as color.xy objects, a mode only when
// one is wanted (the bridge's default is interpolated_palette).
func TestGradientPutShape(t *testing.T) {
	cases := []struct {
		name string
		in   model.Gradient
		want string
	}{
		{"points without a mode", model.Gradient{Points: [][2]float64{{0.1, 0.2}, {0.3, 0.4}}},
			`{"points":[{"color":{"xy":{"x":0.1,"y":0.2}}},{"color":{"xy":{"x":0.3,"y":0.4}}}]}`},
		{"with a mode", model.Gradient{Points: [][2]float64{{0.1, 0.2}, {0.3, 0.4}}, Mode: "interpolated_palette_mirrored"},
			`{"mode":"interpolated_palette_mirrored","points":[{"color":{"xy":{"x":0.1,"y":0.2}}},{"color":{"xy":{"x":0.3,"y":0.4}}}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := json.Marshal(gradientPut(tc.in))
			if string(data) != tc.want {
				t.Errorf("sends %s, want %s", data, tc.want)
			}
		})
	}
}

package wire

import (
	"context"
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2ClientEffects: the v2 client reads a light's effects (what it
// lists, what it plays) and none for a light without an effects object,
// sends an effect as effects.effect, and reads a 400 for an effect the
// light lacks as that attribute refused; the v1 client describes no light
// in CLIP v2, so the model can name effects unsupported there.
func TestV2ClientEffects(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"candles", "plain"}, Models: map[string]string{"candles": "LCA001"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	lights, err := c.Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(lights)
	candles, plain := got["1"], got["2"]
	if !candles.Capabilities.V2 || !slices.Contains(candles.Capabilities.Effects, "candle") ||
		candles.State.Effect == nil || *candles.State.Effect != "no_effect" {
		t.Fatalf("LCA001 read as %+v, effect %v", candles.Capabilities, candles.State.Effect)
	}
	if plain.Capabilities.Effects != nil || plain.State.Effect != nil {
		t.Fatalf("LCT015 has effects %v, plays %v", plain.Capabilities.Effects, plain.State.Effect)
	}

	res, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true), Effect: ptr.To("fire")})
	if err != nil || len(res.Refused) > 0 || res.Accepted.Effect == nil {
		t.Fatalf("fire on the LCA001: %v %+v", err, res)
	}
	if l, _ := sim.Light("1"); l.State.V2Effect != "fire" {
		t.Fatalf("the LCA001 plays %q, want fire", l.State.V2Effect)
	}
	res, err = c.SetLightState(ctx, "2", model.StateBody{On: ptr.To(true), Effect: ptr.To("fire")})
	if err != nil || len(res.Refused) != 1 || res.Refused[0].Param != "effect" {
		t.Fatalf("fire on the LCT015: %v %+v", err, res)
	}

	v1, err := NewClient(sim.Addr(), huetest.User, DefaultCallTimeout).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range v1 {
		if l.Capabilities.V2 || l.Capabilities.Effects != nil || l.State.Effect != nil {
			t.Errorf("v1 light %s read with CLIP v2 effects: %+v", l.ID, l.Capabilities)
		}
	}
}

package wire

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2ClientPowerup: the v2 client reads a light's powerup setting (the
// factory safety, its custom parts in Tether's units) and none for a light
// without a powerup object; it sends a preset alone and a custom setting
// with its parts in v2's units, which the bridge then reports as sent; a
// 400 for a light without the feature is that attribute refused; the v1
// client reads no powerup.
func TestV2ClientPowerup(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"newer", "plain"}, Models: map[string]string{"newer": "LCA001"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	lights, err := c.Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := byID(lights)
	newer, plain := got["1"], got["2"]
	p := newer.State.Powerup
	if !newer.Capabilities.Powerup || p == nil || p.Preset != model.PowerupSafety || p.Dimming == nil ||
		p.Dimming.Bri == nil || *p.Dimming.Bri != 254 || p.Color == nil || p.Color.CT == nil || *p.Color.CT != 366 {
		t.Fatalf("LCA001 read with powerup %v: %+v", newer.Capabilities.Powerup, p)
	}
	if plain.Capabilities.Powerup || plain.State.Powerup != nil {
		t.Fatalf("LCT015 has powerup %+v", plain.State.Powerup)
	}

	custom := model.Powerup{Preset: model.PowerupCustom, On: &model.PowerupOn{Mode: "on", On: ptr.To(false)},
		Dimming: &model.PowerupDimming{Mode: "dimming", Bri: ptr.To(128)}}
	res, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(false), Powerup: &custom})
	if err != nil || len(res.Refused) > 0 || res.Accepted.Powerup == nil {
		t.Fatalf("custom powerup on the LCA001: %v %+v", err, res)
	}
	l, _ := sim.Light("1")
	shown, _ := json.Marshal(l.State.V2Powerup)
	if want := `{"preset":"custom","configured":true,"on":{"mode":"on","on":{"on":false}},` +
		`"dimming":{"dimming":{"brightness":50.2},"mode":"dimming"},"color":{"mode":"color_temperature","color_temperature":{"mirek":366}}}`; string(shown) != want {
		t.Fatalf("the bridge keeps %s, want %s", shown, want)
	}
	lights, _ = c.Lights(ctx)
	if after := byID(lights)["1"].State.Powerup; after == nil || !custom.Shows(*after) {
		t.Fatalf("read back as %+v, want it to show %s", after, custom)
	}

	res, err = c.SetLightState(ctx, "2", model.StateBody{On: ptr.To(true), Powerup: &model.Powerup{Preset: model.PowerupPowerfail}})
	if err != nil || len(res.Refused) != 1 || res.Refused[0].Param != "powerup" {
		t.Fatalf("powerfail on the LCT015: %v %+v", err, res)
	}

	v1, err := NewClient(sim.Addr(), huetest.User, DefaultCallTimeout).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range v1 {
		if l.Capabilities.Powerup || l.State.Powerup != nil {
			t.Errorf("v1 light %s read with a CLIP v2 powerup: %+v", l.ID, l.State.Powerup)
		}
	}
}

// TestPowerupPutShape: a preset goes alone, a custom setting with each
// part in v2's shape and units (brightness in per cent, color beside
// dimming).
func TestPowerupPutShape(t *testing.T) {
	cases := []struct {
		name string
		in   model.Powerup
		want string
	}{
		{"a preset goes alone", model.Powerup{Preset: model.PowerupLastOnState,
			On: &model.PowerupOn{Mode: "toggle"}}, `{"preset":"last_on_state"}`},
		{"custom with every part", model.Powerup{Preset: model.PowerupCustom, On: &model.PowerupOn{Mode: "toggle"},
			Dimming: &model.PowerupDimming{Mode: "dimming", Bri: ptr.To(254)},
			Color:   &model.PowerupColor{Mode: "color", XY: &[2]float64{0.3, 0.4}}},
			`{"color":{"color":{"xy":{"x":0.3,"y":0.4}},"mode":"color"},"dimming":{"dimming":{"brightness":100},"mode":"dimming"},` +
				`"on":{"mode":"toggle"},"preset":"custom"}`},
		{"custom colour temperature", model.Powerup{Preset: model.PowerupCustom,
			Color: &model.PowerupColor{Mode: "color_temperature", CT: ptr.To(250)}},
			`{"color":{"color_temperature":{"mirek":250},"mode":"color_temperature"},"preset":"custom"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := json.Marshal(powerupPut(tc.in))
			if string(data) != tc.want {
				t.Errorf("sends %s, want %s", data, tc.want)
			}
		})
	}
}

package foreignv2

import (
	"context"
	"net/http"
	"strings"
	"testing"

	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoSetsPowerup: openhue-go's generated types decode the
// simulator's powerup object where a light has one (LCA001: the factory
// safety, configured, on mode on, dimming mode dimming at 100 %) and find
// none on a light without the setting (LCT015); its LightPut.Powerup sets
// the preset powerfail and then a custom one (on mode on, on false), which
// the simulator keeps and openhue-go reads back; and the bridge answers
// 400 to a preset other than custom sent with a part, to a custom on mode
// on without on, and to any powerup on the LCT015. This proves the field
// names and values Tether reads and writes (powerup.preset, powerup.on.mode,
// powerup.on.on.on, powerup.dimming.dimming.brightness) and the rules the
// simulator enforces are those of Signify's API description as openhue
// transcribes it; it does not prove which real bulbs have the setting, nor
// the colour part (openhue's description nests it inside dimming, where
// no bridge puts it, so openhue-go cannot send it as a bridge takes it).
func TestOpenhueGoSetsPowerup(t *testing.T) {
	sim := startBridge(t)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	with, without := sim.LightIDV2(v1ID(t, sim, "LCA001")), sim.LightIDV2(v1ID(t, sim, "LCT015"))
	lights, err := home.GetLights()
	if err != nil {
		t.Fatal(err)
	}
	p := lights[with].Powerup
	if p == nil || p.Preset == nil || *p.Preset != openhue.LightGetPowerupPresetSafety || p.Configured == nil || !*p.Configured ||
		p.On == nil || p.On.Mode == nil || *p.On.Mode != openhue.LightGetPowerupOnModeOn ||
		p.Dimming == nil || p.Dimming.Dimming == nil || p.Dimming.Dimming.Brightness == nil || *p.Dimming.Dimming.Brightness != 100 {
		t.Fatalf("LCA001's powerup as openhue-go decodes it: %+v", p)
	}
	if p := lights[without].Powerup; p != nil {
		t.Fatalf("LCT015 has a powerup object: %+v", p)
	}

	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	put := func(id string, p openhue.Powerup) *openhue.UpdateLightResponse {
		t.Helper()
		res, err := c.UpdateLightWithResponse(context.Background(), id, openhue.LightPut{Powerup: &p})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	preset := func(v openhue.PowerupPreset) *openhue.PowerupPreset { return &v }
	onMode := func(m openhue.PowerupOnMode, on *bool) *struct {
		Mode *openhue.PowerupOnMode `json:"mode,omitempty"`
		On   *openhue.On            `json:"on,omitempty"`
	} {
		part := &struct {
			Mode *openhue.PowerupOnMode `json:"mode,omitempty"`
			On   *openhue.On            `json:"on,omitempty"`
		}{Mode: &m}
		if on != nil {
			part.On = &openhue.On{On: on}
		}
		return part
	}

	if res := put(with, openhue.Powerup{Preset: preset(openhue.PowerupPresetPowerfail)}); res.StatusCode() != http.StatusOK {
		t.Fatalf("powerfail: %d %s", res.StatusCode(), res.Body)
	}
	if l, _ := sim.Light(v1ID(t, sim, "LCA001")); l.State.V2Powerup == nil || l.State.V2Powerup.Preset != "powerfail" {
		t.Fatalf("the LCA001 keeps %+v after powerfail", l.State.V2Powerup)
	}
	off := false
	if res := put(with, openhue.Powerup{Preset: preset(openhue.PowerupPresetCustom), On: onMode(openhue.PowerupOnModeOn, &off)}); res.StatusCode() != http.StatusOK {
		t.Fatalf("custom, on false: %d %s", res.StatusCode(), res.Body)
	}
	lights, _ = home.GetLights()
	if p := lights[with].Powerup; p == nil || *p.Preset != openhue.LightGetPowerupPresetCustom || p.On == nil || p.On.On == nil ||
		p.On.On.On == nil || *p.On.On.On {
		t.Fatalf("openhue-go reads back %+v, want custom with on false", p)
	}

	refused := []struct {
		name string
		id   string
		p    openhue.Powerup
	}{
		{"a part with preset safety", with, openhue.Powerup{Preset: preset(openhue.PowerupPresetSafety), On: onMode(openhue.PowerupOnModeToggle, nil)}},
		{"on mode on without on", with, openhue.Powerup{Preset: preset(openhue.PowerupPresetCustom), On: onMode(openhue.PowerupOnModeOn, nil)}},
		{"any powerup on a light without the setting", without, openhue.Powerup{Preset: preset(openhue.PowerupPresetSafety)}},
	}
	for _, tc := range refused {
		if res := put(tc.id, tc.p); res.StatusCode() != http.StatusBadRequest || !strings.Contains(string(res.Body), "powerup") {
			t.Errorf("%s: %d %s, want 400 naming powerup", tc.name, res.StatusCode(), res.Body)
		}
	}
	lights, _ = home.GetLights()
	if p := lights[with].Powerup; p == nil || *p.Preset != openhue.LightGetPowerupPresetCustom {
		t.Errorf("a refused command changed the setting: %+v", p)
	}
}

package foreignv2

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"testing"

	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoScenePalette: openhue-go v0.4.0's generated client stores a
// zone's scene with a palette (two colours with their dimming, a colour
// temperature with its dimming, a dimming entry, two effects: candle, fire),
// a speed and auto_dynamic (ScenePost, ScenePalette, ColorPaletteGet,
// ColorTemperaturePalettePost), and an action with an effect and a
// gradient for the gradient lightstrip; it reads them back as SceneGet,
// every value where openhue's types put it (the effects in order), and
// changes the speed and empties the palette with ScenePut. A palette of 10
// colours (past the reference's 9), or of 4 effects (past its 3), is
// answered 400. This proves the simulator's scene palette, speed,
// auto_dynamic and per-action effect take and show the shape of the API
// description as openhue transcribes it, which is the shape Tether writes
// (wire/scene_options.go); not what a real bridge plays when it shows a
// palette, which the simulator does not model.
func TestOpenhueGoScenePalette(t *testing.T) {
	sim := startBridge(t)
	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	strip := v1ID(t, sim, "LCX004")
	zone := sim.AddZone("Nook", strip)
	colour := func(x, y, bri float64) map[string]any {
		return map[string]any{"color": map[string]any{"xy": map[string]any{"x": x, "y": y}}, "dimming": map[string]any{"brightness": bri}}
	}
	post := func(colours int, effects ...string) openhue.ScenePost {
		palette := []any{}
		for i := 0; i < colours; i++ {
			palette = append(palette, colour(0.6, 0.35, 80))
		}
		paletteEffects := []any{}
		for _, e := range effects {
			paletteEffects = append(paletteEffects, map[string]any{"effect": e})
		}
		var p openhue.ScenePost // built from JSON: the generated types are what decodes and sends it
		raw, _ := json.Marshal(map[string]any{
			"metadata": map[string]any{"name": "Campfire"},
			"group":    map[string]any{"rid": sim.RoomIDV2(zone), "rtype": "zone"},
			"actions": []any{map[string]any{"target": map[string]any{"rid": sim.LightIDV2(strip), "rtype": "light"},
				"action": map[string]any{"on": map[string]any{"on": true}, "effects": map[string]any{"effect": "fire"}}}},
			"palette": map[string]any{"color": palette,
				"color_temperature": []any{map[string]any{"color_temperature": map[string]any{"mirek": 400}, "dimming": map[string]any{"brightness": 50}}},
				"dimming":           []any{map[string]any{"brightness": 70}},
				"effects":           paletteEffects},
			"speed": 0.7, "auto_dynamic": true,
		})
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}

	if res, err := c.CreateSceneWithResponse(ctx, post(10)); err != nil || res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("a palette of 10 colours: %v %d, want 400", err, res.StatusCode())
	}
	if res, err := c.CreateSceneWithResponse(ctx, post(2, "candle", "fire", "sparkle", "prism")); err != nil || res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("a palette of 4 effects: %v %d, want 400", err, res.StatusCode())
	}
	created, err := c.CreateSceneWithResponse(ctx, post(2, "candle", "fire"))
	if err != nil || created.JSON200 == nil || created.JSON200.Data == nil || len(*created.JSON200.Data) != 1 {
		t.Fatalf("CreateScene: %v %s", err, created.Body)
	}
	rid := *(*created.JSON200.Data)[0].Rid
	read := func() openhue.SceneGet {
		t.Helper()
		res, err := c.GetSceneWithResponse(ctx, rid)
		if err != nil || res.JSON200 == nil || res.JSON200.Data == nil || len(*res.JSON200.Data) != 1 {
			t.Fatalf("GetScene: %v %s", err, res.Body)
		}
		return (*res.JSON200.Data)[0]
	}
	near := func(a float32, b float64) bool { return math.Abs(float64(a)-b) < 1e-4 }

	sc := read()
	p := sc.Palette
	if p == nil || p.Color == nil || len(*p.Color) != 2 || p.ColorTemperature == nil || len(*p.ColorTemperature) != 1 ||
		p.Dimming == nil || len(*p.Dimming) != 1 || sc.Speed == nil || !near(*sc.Speed, 0.7) || sc.AutoDynamic == nil || !*sc.AutoDynamic {
		t.Fatalf("the scene as openhue-go reads it: %s", mustJSON(sc))
	}
	first := (*p.Color)[0]
	ct := (*p.ColorTemperature)[0]
	if !near(*first.Color.Xy.X, 0.6) || !near(*first.Color.Xy.Y, 0.35) || !near(*first.Dimming.Brightness, 80) ||
		*ct.ColorTemperature.Mirek != 400 || !near(*ct.Dimming.Brightness, 50) || !near(*(*p.Dimming)[0].Brightness, 70) {
		t.Errorf("palette values: %s", mustJSON(p))
	}
	if p.Effects == nil || len(*p.Effects) != 2 || *(*p.Effects)[0].Effect != openhue.SupportedEffectsCandle ||
		*(*p.Effects)[1].Effect != openhue.SupportedEffectsFire {
		t.Errorf("palette effects, in order: %s", mustJSON(p.Effects))
	}
	actions := *sc.Actions
	if len(actions) != 1 || actions[0].Action == nil || actions[0].Action.Effects == nil || string(*actions[0].Action.Effects.Effect) != "fire" {
		t.Errorf("the strip's action: %s", mustJSON(actions))
	}

	slow, empty := float32(0.1), []openhue.ColorPaletteGet{}
	if res, err := c.UpdateSceneWithResponse(ctx, rid, openhue.ScenePut{Speed: &slow, Palette: &openhue.ScenePalette{Color: &empty}}); err != nil ||
		res.StatusCode() != http.StatusOK {
		t.Fatalf("ScenePut: %v %v", err, res)
	}
	sc = read()
	if !near(*sc.Speed, 0.1) || len(*sc.Palette.Color) != 0 || !*sc.AutoDynamic {
		t.Errorf("after the PUT (speed 0.1, no colours; auto_dynamic kept): %s", mustJSON(sc))
	}
}

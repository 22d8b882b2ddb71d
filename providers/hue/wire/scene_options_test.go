package wire

import (
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"
)

// TestSceneOptionsChanges: only the options a spec manages are compared;
// a palette read back at the bridge's precision (xy to 4 places,
// brightness through percent) is the one written; a differing palette,
// speed past the bridge's precision or auto_dynamic is a change.
func TestSceneOptionsChanges(t *testing.T) {
	palette := &ScenePalette{Colors: []PaletteColor{{XY: [2]float64{0.6, 0.35}, Bri: 200}},
		ColorTemperatures: []PaletteColorTemperature{{CT: 400, Bri: 150}}, Bri: ptr.To(180)}
	// What the bridge answers after palettePut(palette), read through v2Palette.
	raw, _ := json.Marshal(palettePut(*palette))
	var read v2Palette
	if err := json.Unmarshal(raw, &read); err != nil {
		t.Fatal(err)
	}
	stored := SceneOptions{Palette: read.model(), Speed: ptr.To(0.627), AutoDynamic: ptr.To(true)}
	for _, tc := range []struct {
		name    string
		want    SceneOptions
		changes int
	}{
		{"nothing managed", SceneOptions{}, 0},
		{"the palette written is the one read", SceneOptions{Palette: palette}, 0},
		{"speed within the bridge's precision", SceneOptions{Speed: ptr.To(0.63)}, 0},
		{"auto_dynamic the same", SceneOptions{AutoDynamic: ptr.To(true)}, 0},
		{"another colour", SceneOptions{Palette: &ScenePalette{Colors: []PaletteColor{{XY: [2]float64{0.5, 0.35}, Bri: 200}},
			ColorTemperatures: palette.ColorTemperatures, Bri: palette.Bri}}, 1},
		{"no palette brightness wanted, one stored", SceneOptions{Palette: &ScenePalette{Colors: palette.Colors, ColorTemperatures: palette.ColorTemperatures}}, 1},
		{"another speed", SceneOptions{Speed: ptr.To(0.2)}, 1},
		{"all three differ", SceneOptions{Palette: &ScenePalette{}, Speed: ptr.To(0.2), AutoDynamic: ptr.To(false)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.want.Changes(stored); len(got) != tc.changes {
				t.Errorf("Changes = %q, want %d", got, tc.changes)
			}
		})
	}
}

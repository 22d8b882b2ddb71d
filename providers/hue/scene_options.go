package hue

import (
	"slices"

	"strings"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// A HueScene's palette, speed and autoDynamic are a CLIP v2 scene's
// (wire/scene_options.go): stored on a CLIP v2 bridge, and on a v1 bridge,
// which has no such thing, named in the Ready condition and never sent.

// sceneOptions are the spec's options in wire's units; unset ones are not
// managed.
func sceneOptions(spec huev1alpha1.HueSceneSpec) wire.SceneOptions {
	o := wire.SceneOptions{AutoDynamic: spec.AutoDynamic}
	if spec.Speed != nil {
		v := float64(*spec.Speed)
		o.Speed = &v
	}
	if p := spec.Palette; p != nil {
		o.Palette = &wire.ScenePalette{Bri: intPtr(p.Brightness)}
		for _, c := range p.Colors {
			if len(c.XY) == 2 {
				o.Palette.Colors = append(o.Palette.Colors, wire.PaletteColor{XY: [2]float64{float64(c.XY[0]), float64(c.XY[1])}, Bri: int(c.Brightness)})
			}
		}
		for _, c := range p.ColorTemperatures {
			o.Palette.ColorTemperatures = append(o.Palette.ColorTemperatures, wire.PaletteColorTemperature{CT: int(c.ColorTemperature), Bri: int(c.Brightness)})
		}
		o.Palette.Effects = slices.Clone(p.Effects)
	}
	return o
}

// sceneOptionsOnV1 is the note for options a v1 bridge cannot store.
func sceneOptionsOnV1(spec huev1alpha1.HueSceneSpec) string {
	var set []string
	if spec.Palette != nil {
		set = append(set, "palette")
	}
	if spec.Speed != nil {
		set = append(set, "speed")
	}
	if spec.AutoDynamic != nil {
		set = append(set, "autoDynamic")
	}
	return strings.Join(set, ", ") + ": CLIP v2 scene features and this bridge speaks the v1 API: ignored"
}

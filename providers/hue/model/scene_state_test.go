package model

import (
	"testing"

	"k8s.io/utils/ptr"
)

// TestSameSceneState: a scene's stored action is the wanted one when its
// gradient shows the wanted points, whatever mode the bridge gave a
// gradient sent without one; a different mode wanted, other points, or
// another or a missing effect is a difference.
func TestSameSceneState(t *testing.T) {
	points := [][2]float64{{0.6, 0.35}, {0.3, 0.2}}
	state := func(effect *string, g *Gradient) StateBody {
		return StateBody{On: ptr.To(true), Bri: ptr.To(100), Effect: effect, Gradient: g}
	}
	for _, tc := range []struct {
		name      string
		want, got StateBody
		same      bool
	}{
		{"no mode wanted, the bridge's default stored", state(nil, &Gradient{Points: points}),
			state(nil, &Gradient{Points: points, Mode: "interpolated_palette"}), true},
		{"points at the bridge's precision", state(nil, &Gradient{Points: points}),
			state(nil, &Gradient{Points: [][2]float64{{0.60004, 0.35}, {0.3, 0.2}}}), true},
		{"another mode wanted", state(nil, &Gradient{Points: points, Mode: "random_pixelated"}),
			state(nil, &Gradient{Points: points, Mode: "interpolated_palette"}), false},
		{"other points", state(nil, &Gradient{Points: points}), state(nil, &Gradient{Points: points[:1]}), false},
		{"no gradient stored", state(nil, &Gradient{Points: points}), state(nil, nil), false},
		{"the effect stored", state(ptr.To("fire"), nil), state(ptr.To("fire"), nil), true},
		{"another effect stored", state(ptr.To("fire"), nil), state(ptr.To("candle"), nil), false},
		{"no effect stored", state(ptr.To("fire"), nil), state(nil, nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameSceneState(tc.want, tc.got); got != tc.same {
				t.Errorf("SameSceneState = %t, want %t", got, tc.same)
			}
		})
	}
}

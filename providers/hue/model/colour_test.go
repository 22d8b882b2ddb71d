package model

import (
	"testing"
)

// TestHueSatToXY: the conversion against Philips' formulas' known points
// and the bulbs' gamuts.
func TestHueSatToXY(t *testing.T) {
	c := gamutC
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
		got := HueSatToXY(tc.hue, tc.sat, tc.g)
		if xyDistance(got, tc.want) > tc.tol {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

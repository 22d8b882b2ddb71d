package huesim

import "testing"

func TestColors(t *testing.T) {
	lit := func(mode string) LightState { return LightState{On: true, Bri: 254, ColorMode: mode} }
	with := func(st LightState, f func(*LightState)) LightState { f(&st); return st }
	tests := []struct {
		name         string
		st           LightState
		swatch, glow string
	}{
		{"xy D65 white point is white", with(lit("xy"), func(s *LightState) { s.XY = [2]float64{0.3127, 0.329} }), "#f5feff", "#f5feff"},
		{"xy red corner is red", with(lit("xy"), func(s *LightState) { s.XY = [2]float64{0.675, 0.322} }), "#ff4300", "#ff4300"},
		{"xy blue corner is blue", with(lit("xy"), func(s *LightState) { s.XY = [2]float64{0.167, 0.04} }), "#4d00ff", "#4d00ff"},
		{"xy y=0 does not divide by zero", with(lit("xy"), func(s *LightState) { s.XY = [2]float64{0.3, 0} }), "#ffffff", "#ffffff"},
		{"ct 153 (6500 K) is cold white", with(lit("ct"), func(s *LightState) { s.CT = 153 }), "#fffffb", "#fffffb"},
		{"ct 366 (default) is warm", with(lit("ct"), func(s *LightState) { s.CT = 366 }), "#ffa85a", "#ffa85a"},
		{"ct 500 (2000 K) is candle", with(lit("ct"), func(s *LightState) { s.CT = 500 }), "#ff890e", "#ff890e"},
		{"ct out of range is clamped", with(lit("ct"), func(s *LightState) { s.CT = 9000 }), "#ff890e", "#ff890e"},
		{"no colormode is treated as ct", with(lit(""), func(s *LightState) { s.CT = 366 }), "#ffa85a", "#ffa85a"},
		{"hs red", with(lit("hs"), func(s *LightState) { s.Hue, s.Sat = 0, 254 }), "#ff0000", "#ff0000"},
		{"hs green", with(lit("hs"), func(s *LightState) { s.Hue, s.Sat = 21845, 254 }), "#00ff00", "#00ff00"},
		{"hs blue", with(lit("hs"), func(s *LightState) { s.Hue, s.Sat = 43690, 254 }), "#0000ff", "#0000ff"},
		{"hs sat 0 is white", with(lit("hs"), func(s *LightState) { s.Hue, s.Sat = 65535, 0 }), "#ffffff", "#ffffff"},
		{"half brightness dims the glow, not the swatch", with(lit("hs"), func(s *LightState) { s.Sat, s.Bri = 254, 127 }), "#ff0000", "#a60000"},
		{"bri 1 still glows", with(lit("hs"), func(s *LightState) { s.Sat, s.Bri = 254, 1 }), "#ff0000", "#4d0000"},
		{"off is dark but keeps its swatch", with(lit("hs"), func(s *LightState) { s.Sat, s.On = 254, false }), "#ff0000", offColor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SwatchColor(tt.st); got != tt.swatch {
				t.Errorf("SwatchColor = %s, want %s", got, tt.swatch)
			}
			if got := GlowColor(tt.st); got != tt.glow {
				t.Errorf("GlowColor = %s, want %s", got, tt.glow)
			}
		})
	}
}

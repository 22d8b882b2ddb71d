package huesim

import (
	"encoding/json"
	"fmt"
	"math"
)

// A CLIP v2 light PUT body (LightPut), as a light (v2handlers.go), a
// grouped_light and a scene's actions (v2scenes.go) take it.

// maxDuration is the longest dynamics.duration a light takes, in ms
// (openhue-api LightPut: at most 6 000 000, 100 ms steps).
const maxDuration = 6000000

// lightPut is the part of LightPut the simulator acts on; other features
// (alert, gradient, ...) are accepted and ignored.
type lightPut struct {
	On *struct {
		On bool `json:"on"`
	} `json:"on"`
	Dimming *struct {
		Brightness *float64 `json:"brightness"`
	} `json:"dimming"`
	Color *struct {
		XY *struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		} `json:"xy"`
	} `json:"color"`
	ColorTemperature *struct {
		Mirek *int `json:"mirek"`
	} `json:"color_temperature"`
	Dynamics *struct {
		Duration *int     `json:"duration"`
		Speed    *float64 `json:"speed"`
	} `json:"dynamics"`
	Effects *struct {
		Effect *string `json:"effect"`
	} `json:"effects"`
	Powerup  json.RawMessage `json:"powerup"`
	Gradient json.RawMessage `json:"gradient"`
}

// effect is the effect the PUT sets, "" when none.
func (p lightPut) effect() string {
	if p.Effects == nil || p.Effects.Effect == nil {
		return ""
	}
	return *p.Effects.Effect
}

// v1Body translates a v2 PUT to the v1 state body the bulb model applies,
// or says why a v2 bridge answers 400. CLIP v2 is strict where v1 clamps: a
// mirek outside the light's mirek_schema is refused (HTTP 400,
// home-assistant.io #20658, home-assistant/core #61584), and so, here, is
// a feature the light does not have. The descriptions are the simulator's
// own words: real ones are not recorded in the notes.
func (p lightPut) v1Body(m Model) (map[string]json.RawMessage, string) {
	body := map[string]json.RawMessage{}
	put := func(k string, v any) { body[k], _ = json.Marshal(v) }
	if p.On != nil {
		put("on", p.On.On)
	}
	if p.Dimming != nil && p.Dimming.Brightness != nil {
		b := *p.Dimming.Brightness
		if !m.dimmable() || b < 0 || b > 100 {
			return nil, fmt.Sprintf("invalid value for dimming.brightness: %g", b)
		}
		put("bri", briOf(b))
	}
	if p.Color != nil && p.Color.XY != nil {
		xy := p.Color.XY
		if !m.colour() || !unit(xy.X) || !unit(xy.Y) {
			return nil, fmt.Sprintf("invalid value for color.xy: [%g, %g]", xy.X, xy.Y)
		}
		put("xy", []float64{xy.X, xy.Y})
	}
	if p.ColorTemperature != nil && p.ColorTemperature.Mirek != nil {
		v, r := *p.ColorTemperature.Mirek, m.shownCT()
		if !m.colourTemperature() || v < r[0] || v > r[1] {
			return nil, fmt.Sprintf("invalid value for color_temperature.mirek: %d is not within mirek_schema %d-%d", v, r[0], r[1])
		}
		put("ct", v)
	}
	if p.Dynamics != nil && p.Dynamics.Duration != nil {
		d := *p.Dynamics.Duration
		if d < 0 || d > maxDuration {
			return nil, fmt.Sprintf("invalid value for dynamics.duration: %d", d)
		}
		put("transitiontime", int(math.Round(float64(d)/100)))
	}
	return body, ""
}

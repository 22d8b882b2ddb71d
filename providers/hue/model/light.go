package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A bulb as its bridge describes it: what it is, what it can show, and
// what it reports of its state, in the bridge's units; below, the values
// of what only CLIP v2 lights have.

// Light is one bulb as its bridge describes it.
type Light struct {
	ID   string
	Name string
	// Type is the bridge's light type ("Extended color light") and ModelID
	// the product's model ("LCT015").
	Type         string
	ModelID      string
	Capabilities Capabilities
	State        LightState
}

// LightState is what the bridge reports of a bulb. A nil field is one the
// bridge does not report for it: unknown, never a reason to send.
type LightState struct {
	On        bool
	Reachable bool
	Bri       *int
	Hue       *int
	Sat       *int
	XY        *[2]float64
	CT        *int
	// ColorMode is the colour setting last used (xy, ct, hs); empty when
	// not reported.
	ColorMode string
	// Effect is the effect the light plays (CLIP v2's effects.status:
	// no_effect, candle, ...); nil for a light without effects, and on the
	// v1 API.
	Effect *string
	// Powerup is the light's CLIP v2 powerup setting; nil for a light
	// without one, and on the v1 API.
	Powerup *Powerup
	// Gradient is the light's CLIP v2 gradient; nil for a light without
	// one, and on the v1 API.
	Gradient *Gradient
	// Speed is the speed of what the light plays (CLIP v2's
	// dynamics.speed), nil when it says it is not valid (nothing plays),
	// for a light without dynamics, and on the v1 API.
	Speed *float64
}

// Capabilities is what a bulb can show.
type Capabilities struct {
	// Dimmable: it takes a brightness.
	Dimmable bool
	// Color: it takes xy (and hue/saturation, through HueSat or as xy).
	Color bool
	// HueSat: the bridge takes hue/saturation for it (v1 colour bulbs).
	// CLIP v2 has only xy, so a spec's hue/saturation goes as xy (colour.go).
	HueSat bool
	// ColorTemperature is its range in mireds; nil when it has none.
	ColorTemperature *MiredRange
	// Gamut is the triangle of colours it can show; nil when unknown (then
	// xy is sent as written, and the bridge maps it).
	Gamut *Gamut
	// V2 says the bridge describes the light in CLIP v2: only that API
	// has the features below, so on the v1 API a bulb has none of them,
	// whatever it could do on a v2 bridge.
	V2 bool
	// Effects are the effects the light lists (CLIP v2's
	// effects.effect_values, no_effect among them); nil when it has no
	// effects object: a light shows an effect only if it lists it.
	Effects []string
	// Powerup: the light has a powerup object (CLIP v2), so it takes a
	// powerup setting.
	Powerup bool
	// Gradient is what a gradient light reports of the feature; nil for a
	// light without it.
	Gradient *GradientCapabilities
	// Dynamics: the light has a dynamics object (CLIP v2), so it takes a
	// speed.
	Dynamics bool
}

// MiredRange is a colour-temperature range, inclusive.
type MiredRange struct{ Min, Max int }

// Gamut is a triangle in CIE xy: the colours a bulb can show.
type Gamut struct {
	Type             string // A, B, C or other
	Red, Green, Blue [2]float64
}

// What only CLIP v2 lights have: an effect and the speed it plays at
// (LightState.Effect, LightState.Speed), what a bulb does when its power
// returns (Powerup) and colours along a gradient (Gradient). The v1 API
// has none of them. Each is fitted (fit.go), compared (diff.go) and sent
// (command.go) like the rest of a state; a command with any of them goes
// to its light alone (StateBody.LightOnly).

// What a bulb does when its power returns: CLIP v2's powerup feature
// (CLIP v2 API reference, "light", powerup; openhue/openhue-api,
// src/light/schemas, which openhue-go v0.4.0 generates its Powerup from).
// It is a setting of the bulb, not its state: it is the same whether the
// light is on or off, so it is fitted and compared whatever spec.on says.
// The v1 API has no such setting.

// Powerup presets, as Hue names them. Only custom takes On, Dimming and
// Color: "for all other presets, no other properties can be included"
// (openhue-api's Powerup.preset).
const (
	PowerupSafety      = "safety"
	PowerupPowerfail   = "powerfail"
	PowerupLastOnState = "last_on_state"
	PowerupCustom      = "custom"
)

// Powerup modes that carry a value; the others (toggle, previous) do not.
const (
	powerupOnModeOn           = "on"
	powerupDimmingModeDimming = "dimming"
	powerupColorModeCT        = "color_temperature"
	powerupColorModeXY        = "color"
)

// Powerup is a light's powerup setting, in the bridge's units (bri 1-254,
// ct in mireds, xy in CIE 1931).
type Powerup struct {
	Preset  string          `json:"preset"`
	On      *PowerupOn      `json:"on,omitempty"`
	Dimming *PowerupDimming `json:"dimming,omitempty"`
	Color   *PowerupColor   `json:"color,omitempty"`
}

// PowerupOn is what on does at powerup: mode on (On says which), toggle or
// previous.
type PowerupOn struct {
	Mode string `json:"mode"`
	On   *bool  `json:"on,omitempty"`
}

// PowerupDimming is the brightness at powerup: mode dimming (Bri) or
// previous.
type PowerupDimming struct {
	Mode string `json:"mode"`
	Bri  *int   `json:"bri,omitempty"`
}

// PowerupColor is the colour at powerup: mode color_temperature (CT),
// color (XY) or previous.
type PowerupColor struct {
	Mode string      `json:"mode"`
	CT   *int        `json:"ct,omitempty"`
	XY   *[2]float64 `json:"xy,omitempty"`
}

// String is the setting as a note or a change names it: the preset, or a
// custom one whole.
func (p Powerup) String() string {
	if p.Preset != PowerupCustom {
		return p.Preset
	}
	data, _ := json.Marshal(p) // plain values: cannot fail
	return string(data)
}

// A gradient: several colours along one light (a gradient lightstrip),
// CLIP v2's gradient feature (CLIP v2 API reference, "light", gradient;
// openhue/openhue-api, src/light/schemas, which openhue-go v0.4.0
// generates its Gradient from). A light that has it reports
// points_capable, the number of points it shows, and may report
// mode_values, the ways it lays them out; a PUT sets at least two points
// ("for control of the gradient points through a PUT a minimum of 2 points
// need to be provided") and a mode, interpolated_palette when left out.
// The v1 API has no gradient.

// MinGradientPoints is the fewest points a gradient command sets.
const MinGradientPoints = 2

// Gradient is the colours along a light, in CIE 1931 xy, and how they
// are laid out (Mode, "" for the light's own or the bridge's default).
type Gradient struct {
	Points [][2]float64 `json:"points"`
	Mode   string       `json:"mode,omitempty"`
}

// GradientCapabilities is what a gradient light reports of the feature.
type GradientCapabilities struct {
	// PointsCapable is the number of points it shows.
	PointsCapable int
	// Modes are its mode_values; nil when it reports none (then no mode
	// is sent: the bridge keeps its default).
	Modes []string
}

// String names a gradient in a change: its points and mode.
func (g Gradient) String() string {
	points := make([]string, len(g.Points))
	for i, p := range g.Points {
		points[i] = fmt.Sprintf("[%g, %g]", p[0], p[1])
	}
	s := strings.Join(points, " ")
	if g.Mode != "" {
		s += " " + g.Mode
	}
	return s
}

package model

import (
	"encoding/json"
	"fmt"
)

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

// Shows reports whether the reported setting got is the wanted one: the
// same preset and, for custom, each part the wanted one sets (a part it
// leaves out is the bulb's).
func (p Powerup) Shows(got Powerup) bool {
	if p.Preset != got.Preset {
		return false
	}
	if p.Preset != PowerupCustom {
		return true
	}
	return showsPowerupOn(p.On, got.On) && showsPowerupDimming(p.Dimming, got.Dimming) && showsPowerupColor(p.Color, got.Color)
}

func showsPowerupOn(want, got *PowerupOn) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.On == nil || got.On != nil && *got.On == *want.On)
}

func showsPowerupDimming(want, got *PowerupDimming) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.Bri == nil || got.Bri != nil && *got.Bri == *want.Bri)
}

func showsPowerupColor(want, got *PowerupColor) bool {
	if want == nil {
		return true
	}
	return got != nil && want.Mode == got.Mode && (want.CT == nil || got.CT != nil && *got.CT == *want.CT) &&
		(want.XY == nil || got.XY != nil && NearXY(*got.XY, *want.XY))
}

// fitPowerup leaves out a powerup the light cannot take (a v1 bridge, a
// light without a powerup object: a v2 bridge refuses it, and sent again it
// would be refused again), and the parts of a custom one the bulb cannot
// show ("availability of color_temperature and color modes depend on the
// capabilities of the lamp", openhue-api's powerup.color.mode), with a
// colour temperature clamped to the bulb's range as the state's is.
func (p *Projection) fitPowerup(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Powerup == nil:
		return
	case !c.V2:
		p.Want.Powerup = nil
		p.note("powerup %s is a CLIP v2 feature and this light's bridge speaks the v1 API: powerup is ignored", want.Powerup.Preset)
		return
	case !c.Powerup:
		p.Want.Powerup = nil
		p.note("this bulb (%s) has no powerup setting: powerup is ignored", describeBulb(l))
		return
	}
	fitted := *want.Powerup
	if fitted.Dimming != nil && fitted.Dimming.Mode == powerupDimmingModeDimming && !c.Dimmable {
		fitted.Dimming = nil
		p.note("this bulb (%s) cannot dim: powerup.dimming is ignored", describeBulb(l))
	}
	if col := fitted.Color; col != nil {
		switch {
		case col.Mode == powerupColorModeXY && !c.Color:
			fitted.Color = nil
			p.note("this bulb (%s) shows no colour: powerup.color is ignored", describeBulb(l))
		case col.Mode == powerupColorModeCT && c.ColorTemperature == nil:
			fitted.Color = nil
			p.note("this bulb (%s) has no colour temperature: powerup.color is ignored", describeBulb(l))
		case col.Mode == powerupColorModeCT && col.CT != nil:
			r := *c.ColorTemperature
			if shown := min(max(*col.CT, r.Min), r.Max); shown != *col.CT {
				p.note("powerup.color.colorTemperature %d is outside this bulb's %d-%d mireds; it takes %d", *col.CT, r.Min, r.Max, shown)
				fitted.Color = &PowerupColor{Mode: col.Mode, CT: &shown}
			}
		}
	}
	p.Want.Powerup = &fitted
}

// comparePowerup sends the powerup setting when the light reports another,
// or does not say which it has.
func (d *Diff) comparePowerup(want Desired, got LightState) {
	if want.Powerup == nil || got.Powerup != nil && want.Powerup.Shows(*got.Powerup) {
		return
	}
	d.Body.Powerup = want.Powerup
	shown := "unknown"
	if got.Powerup != nil {
		shown = got.Powerup.String()
	}
	d.Changes = append(d.Changes, fmt.Sprintf("powerup: %s -> %s", shown, want.Powerup.String()))
}

package huesim

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A light's powerup setting, what it does when power returns: a CLIP v2
// feature only (the v1 API has none). A light that has it carries a
// powerup object {preset, configured, on, dimming, color}, one without it
// none; a client sets it with PUT {"powerup": {...}} (CLIP v2 API
// reference, "light", https://developers.meethue.com/develop/hue-api-v2/api-reference/#resource_light;
// openhue/openhue-api, src/light/schemas, from which openhue-go v0.4.0
// generates LightGet.Powerup and LightPut.Powerup). Its rules, as that
// description states them:
//   - preset is safety, powerfail, last_on_state or custom, and "for all
//     other presets [than custom], no other properties can be included";
//   - on.mode on needs on.on, dimming.mode dimming needs dimming.dimming,
//     color.mode color_temperature needs color_temperature and color.mode
//     color needs color ("must be included");
//   - "availability of color_temperature and color modes depend on the
//     capabilities of the lamp".
// The simulator answers 400 where these are broken, as a v2 bridge does for
// an invalid value, with words of its own (real ones are not recorded).
//
// color sits beside dimming, as a Bridge Pro reports it (aiohue,
// tests/fixtures/v2_resources.json); openhue's description nests it inside
// dimming, an error of that description. The factory setting is the
// fixture's: safety, configured, on, full brightness, 366 mireds. Which
// bulbs have the setting is not in the sources at hand beyond that dump
// (the old lightstrip has none): the simulator gives it to the models it
// marks Powerup, a choice, not a record of those products.

// Powerup presets.
const (
	powerupSafety = "safety"
	powerupCustom = "custom"
)

var powerupPresets = []string{powerupSafety, "powerfail", "last_on_state", powerupCustom}

// Powerup is a light's powerup setting as the v2 API shows it; the parts
// are kept as sent (the bridge's shape).
type Powerup struct {
	Preset     string          `json:"preset"`
	Configured bool            `json:"configured"`
	On         json.RawMessage `json:"on,omitempty"`
	Dimming    json.RawMessage `json:"dimming,omitempty"`
	Color      json.RawMessage `json:"color,omitempty"`
}

// factoryPowerup is the setting of a light nobody configured (the
// fixture's safety).
func factoryPowerup() Powerup {
	return Powerup{Preset: powerupSafety, Configured: true,
		On:      json.RawMessage(`{"mode":"on","on":{"on":true}}`),
		Dimming: json.RawMessage(`{"mode":"dimming","dimming":{"brightness":100}}`),
		Color:   json.RawMessage(`{"mode":"color_temperature","color_temperature":{"mirek":366}}`)}
}

// powerupOf is the setting the light shows.
func powerupOf(st LightState) Powerup {
	if st.V2Powerup == nil {
		return factoryPowerup()
	}
	return *st.V2Powerup
}

// powerupPut is a PUT's powerup object, parts decoded to be checked.
type powerupPut struct {
	Preset string `json:"preset"`
	On     *struct {
		Mode string          `json:"mode"`
		On   json.RawMessage `json:"on"`
	} `json:"on"`
	Dimming *struct {
		Mode    string          `json:"mode"`
		Dimming json.RawMessage `json:"dimming"`
	} `json:"dimming"`
	Color *struct {
		Mode             string          `json:"mode"`
		ColorTemperature json.RawMessage `json:"color_temperature"`
		Color            json.RawMessage `json:"color"`
	} `json:"color"`
	raw map[string]json.RawMessage
}

// powerupRefusal says why a v2 bridge answers 400 to a powerup, "" when
// the light takes it.
func powerupRefusal(m Model, p powerupPut) string {
	switch {
	case !m.Powerup:
		return "invalid value for powerup: the light has no powerup feature"
	case !slices.Contains(powerupPresets, p.Preset):
		return fmt.Sprintf("invalid value for powerup.preset: %q", p.Preset)
	case p.Preset != powerupCustom && (p.On != nil || p.Dimming != nil || p.Color != nil):
		return fmt.Sprintf("invalid value for powerup: preset %s takes no on, dimming or color", p.Preset)
	case p.On != nil && (p.On.Mode == "on") != (len(p.On.On) > 0):
		return "invalid value for powerup.on: mode on goes with on, and only it"
	case p.Dimming != nil && (p.Dimming.Mode == "dimming") != (len(p.Dimming.Dimming) > 0):
		return "invalid value for powerup.dimming: mode dimming goes with dimming, and only it"
	case p.Dimming != nil && !m.dimmable():
		return "invalid value for powerup.dimming: the light does not dim"
	case p.Color != nil && (p.Color.Mode == "color_temperature") != (len(p.Color.ColorTemperature) > 0),
		p.Color != nil && (p.Color.Mode == "color") != (len(p.Color.Color) > 0):
		return "invalid value for powerup.color: its mode goes with its value, and only it"
	case p.Color != nil && p.Color.Mode == "color" && !m.colour(),
		p.Color != nil && p.Color.Mode == "color_temperature" && !m.colourTemperature():
		return fmt.Sprintf("invalid value for powerup.color.mode: %s is not available on this light", p.Color.Mode)
	}
	return ""
}

// applyPowerup sets what the PUT sends; a custom one keeps the parts it
// leaves out (a PUT is partial), a preset replaces them all.
func applyPowerup(st *LightState, p powerupPut) {
	next := Powerup{Preset: p.Preset, Configured: true}
	if p.Preset == powerupSafety {
		next = factoryPowerup()
	}
	if p.Preset == powerupCustom {
		prev := powerupOf(*st)
		next.On, next.Dimming, next.Color = prev.On, prev.Dimming, prev.Color
		for k, v := range p.raw {
			switch k {
			case "on":
				next.On = v
			case "dimming":
				next.Dimming = v
			case "color":
				next.Color = v
			}
		}
	}
	st.V2Powerup = &next
}

// decodePowerup reads a PUT's powerup object.
func decodePowerup(raw json.RawMessage) (powerupPut, error) {
	var p powerupPut
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, err
	}
	return p, json.Unmarshal(raw, &p.raw)
}

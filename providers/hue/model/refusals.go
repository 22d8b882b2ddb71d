package model

import (
	"fmt"
	"slices"
)

// A bridge answers a command attribute by attribute: it applies what it can
// and refuses the rest (error 6 parameter not available, 7 invalid value,
// 8 not modifiable, 201 device off), each with its address. What it
// accepted counts; a refused attribute is not sent again with the same
// value, and the HueLight's Ready condition names it, until the spec asks
// for another value or the bulb changes (another model; switched on, for
// error 201).

// Refused is an attribute a bridge refused for a bulb, with the value sent.
type Refused struct {
	Type        int // the bridge's error type
	Description string
	Value       string // the value sent, as JSON
}

// WithoutRefused leaves out of want the attributes refused (by parameter)
// with the very value want has, and says so.
func WithoutRefused(want Desired, refused map[string]Refused) (Desired, []string) {
	if len(refused) == 0 || !want.On {
		return want, nil
	}
	full := FullBody(want)
	params := make([]string, 0, len(refused))
	for p := range refused {
		params = append(params, p)
	}
	slices.Sort(params)
	var notes []string
	for _, p := range params {
		ref := refused[p]
		if ref.Value == "" || full.Value(p) != ref.Value {
			continue
		}
		want = want.Without(p)
		notes = append(notes, fmt.Sprintf("the bridge refused %s %s (error %d: %s): not sent again until the spec or the bulb changes",
			specField(p), ref.Value, ref.Type, ref.Description))
	}
	return want, notes
}

// specField names a bridge attribute as the HueLight's spec does.
func specField(param string) string {
	switch param {
	case "bri":
		return "brightness"
	case "xy":
		return "color.xy"
	case "ct":
		return "color.colorTemperature"
	case "hue":
		return "color.hue"
	case "sat":
		return "color.saturation"
	case "transitiontime":
		return "transitionTime"
	}
	return param
}

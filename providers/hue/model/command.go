package model

import (
	"encoding/json"
	"slices"
)

// StateBody is a command: only the attributes to change. On is always set,
// so a brightness or colour change on a light that is off carries on:true
// (the bridge answers error 201 otherwise). Its JSON is the v1 API's form:
// the v1 client sends it as it is, and Key compares bodies by it.
type StateBody struct {
	On             *bool       `json:"on,omitempty"`
	Bri            *int        `json:"bri,omitempty"`
	Hue            *int        `json:"hue,omitempty"`
	Sat            *int        `json:"sat,omitempty"`
	XY             *[2]float64 `json:"xy,omitempty"`
	CT             *int        `json:"ct,omitempty"`
	TransitionTime *int        `json:"transitiontime,omitempty"`
	// Effect is a CLIP v2 effect (effects.effect). Only a light command
	// carries it (LightOnly); the v1 API never gets it, as model.Project
	// leaves it out for a light that is not described in CLIP v2.
	Effect *string `json:"effect,omitempty"`
	// Powerup is a CLIP v2 powerup setting (powerup.go), light-only like
	// an effect and never sent on the v1 API for the same reason.
	Powerup *Powerup `json:"powerup,omitempty"`
	// Gradient is a CLIP v2 gradient (gradient.go), light-only too.
	Gradient *Gradient `json:"gradient,omitempty"`
	// Speed is a CLIP v2 dynamics.speed, 0 to 1 (dynamics.go), light-only
	// too.
	Speed *float64 `json:"speed,omitempty"`
}

// LightOnly reports whether the body sets what only a command to one
// light can carry: a CLIP v2 effect, powerup setting, gradient or speed,
// which neither a v1 group nor a v1 scene takes. Such a body never goes in
// a group command.
func (b StateBody) LightOnly() bool {
	return b.Effect != nil || b.Powerup != nil || b.Gradient != nil || b.Speed != nil
}

// Key is the body as the bridge receives it, to compare bodies by value.
func (b StateBody) Key() string {
	data, _ := json.Marshal(b) // plain values: cannot fail
	return string(data)
}

// Without returns the body without the named attributes.
func (b StateBody) Without(params ...string) StateBody {
	for _, p := range params {
		switch p {
		case "on":
			b.On = nil
		case "bri":
			b.Bri = nil
		case "hue":
			b.Hue = nil
		case "sat":
			b.Sat = nil
		case "xy":
			b.XY = nil
		case "ct":
			b.CT = nil
		case "transitiontime":
			b.TransitionTime = nil
		case "effect":
			b.Effect = nil
		case "powerup":
			b.Powerup = nil
		case "gradient":
			b.Gradient = nil
		case "speed":
			b.Speed = nil
		}
	}
	return b
}

// Only returns the body with only the named attributes.
func (b StateBody) Only(params ...string) StateBody {
	var drop []string
	for _, p := range b.Params() {
		if !slices.Contains(params, p) {
			drop = append(drop, p)
		}
	}
	return b.Without(drop...)
}

// stateParams are the body's attributes by parameter name, each giving
// its pointer (nil: not set). A table rather than a map built at each
// call: Params and Value run for every light at every read and every
// answer, and building an 11-entry map each time was the largest
// allocation of a Hue read.
var stateParams = []struct {
	name string
	of   func(b *StateBody) any
}{
	{"on", func(b *StateBody) any { return b.On }},
	{"bri", func(b *StateBody) any { return b.Bri }},
	{"hue", func(b *StateBody) any { return b.Hue }},
	{"sat", func(b *StateBody) any { return b.Sat }},
	{"xy", func(b *StateBody) any { return b.XY }},
	{"ct", func(b *StateBody) any { return b.CT }},
	{"transitiontime", func(b *StateBody) any { return b.TransitionTime }},
	{"effect", func(b *StateBody) any { return b.Effect }},
	{"powerup", func(b *StateBody) any { return b.Powerup }},
	{"gradient", func(b *StateBody) any { return b.Gradient }},
	{"speed", func(b *StateBody) any { return b.Speed }},
}

// Params lists the attributes the body sets, in stateParams' order.
func (b StateBody) Params() []string {
	var out []string
	for _, p := range stateParams {
		if !isNil(p.of(&b)) {
			out = append(out, p.name)
		}
	}
	return out
}

// Value is one attribute's value as JSON, "" when the body leaves it out.
func (b StateBody) Value(param string) string {
	for _, p := range stateParams {
		if p.name != param {
			continue
		}
		v := p.of(&b)
		if isNil(v) {
			return ""
		}
		data, _ := json.Marshal(v)
		return string(data)
	}
	return ""
}

// Merged is b with the attributes next sets replaced.
func (b StateBody) Merged(next StateBody) StateBody {
	// A bulb shows one colour mode: a colour set later replaces the modes
	// set before it (hue and sat are one mode, and may come one at a time).
	// Kept, an earlier ct would outlive a later xy on a bridge that stops
	// reporting ct in xy mode (CLIP v2: mirek null), and read as the state.
	switch {
	case next.XY != nil:
		b = b.Without("ct", "hue", "sat")
	case next.CT != nil:
		b = b.Without("xy", "hue", "sat")
	case next.Hue != nil || next.Sat != nil:
		b = b.Without("xy", "ct")
	}
	if next.On != nil {
		b.On = next.On
	}
	if next.Bri != nil {
		b.Bri = next.Bri
	}
	if next.Hue != nil {
		b.Hue = next.Hue
	}
	if next.Sat != nil {
		b.Sat = next.Sat
	}
	if next.XY != nil {
		b.XY = next.XY
	}
	if next.CT != nil {
		b.CT = next.CT
	}
	if next.TransitionTime != nil {
		b.TransitionTime = next.TransitionTime
	}
	if next.Effect != nil {
		b.Effect = next.Effect
	}
	if next.Powerup != nil {
		b.Powerup = next.Powerup
	}
	if next.Gradient != nil {
		b.Gradient = next.Gradient
	}
	if next.Speed != nil {
		b.Speed = next.Speed
	}
	return b
}

func isNil(v any) bool {
	switch p := v.(type) {
	case *bool:
		return p == nil
	case *int:
		return p == nil
	case *[2]float64:
		return p == nil
	case *string:
		return p == nil
	case *Powerup:
		return p == nil
	case *Gradient:
		return p == nil
	case *float64:
		return p == nil
	}
	return v == nil
}

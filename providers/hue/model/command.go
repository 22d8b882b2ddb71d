package model

import (
	"encoding/json"
	"slices"
	"time"
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
	// Powerup is a CLIP v2 powerup setting, light-only like an effect and
	// never sent on the v1 API for the same reason.
	Powerup *Powerup `json:"powerup,omitempty"`
	// Gradient is a CLIP v2 gradient, light-only too.
	Gradient *Gradient `json:"gradient,omitempty"`
	// Speed is a CLIP v2 dynamics.speed, 0 to 1, light-only too.
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

// What a bulb's state shows of a command, what it becomes once the
// bridge accepted one, and from when it surely shows it: the cache's reads
// and acceptances meet here.

// Reported lists the attributes a state reports.
func Reported(st LightState) []string {
	// An array, not a map: a map of more than eight entries is made on
	// the heap at each call, and this runs for every light at every read.
	reported := [...]struct {
		name string
		set  bool
	}{{"bri", st.Bri != nil}, {"hue", st.Hue != nil}, {"sat", st.Sat != nil}, {"xy", st.XY != nil}, {"ct", st.CT != nil},
		{"effect", st.Effect != nil}, {"powerup", st.Powerup != nil}, {"gradient", st.Gradient != nil}, {"speed", st.Speed != nil}}
	out := make([]string, 1, 1+len(reported))
	out[0] = "on"
	for _, r := range reported {
		if r.set {
			out = append(out, r.name)
		}
	}
	return out
}

// Shows reports whether the state shows every attribute of body it
// reports, at the bridge's precision (hue/sat as the colour they make on a
// bulb of gamut g, colour.go).
func (s LightState) Shows(body StateBody, g *Gamut) bool {
	match := func(got, want *int) bool { return want == nil || got == nil || *got == *want }
	hs := match(s.Hue, body.Hue) && match(s.Sat, body.Sat)
	if body.Hue != nil && body.Sat != nil && (s.Hue != nil || s.XY != nil) {
		hs = showsHueSat(*body.Hue, *body.Sat, s, g)
	}
	effect := body.Effect == nil || s.Effect == nil || *s.Effect == *body.Effect
	powerup := body.Powerup == nil || s.Powerup == nil || body.Powerup.Shows(*s.Powerup)
	gradient := body.Gradient == nil || s.Gradient == nil || body.Gradient.Shows(*s.Gradient)
	speed := body.Speed == nil || s.Speed == nil || NearSpeed(*s.Speed, *body.Speed)
	return (body.On == nil || *body.On == s.On) && match(s.Bri, body.Bri) && hs && effect && powerup && gradient && speed &&
		match(s.CT, body.CT) && (body.XY == nil || s.XY == nil || NearXY(*s.XY, *body.XY))
}

// Applied returns the state as it is after the bridge accepted body.
func (s LightState) Applied(body StateBody) LightState {
	if body.On != nil {
		s.On = *body.On
	}
	if body.Bri != nil {
		s.Bri = body.Bri
	}
	if body.Effect != nil {
		s.Effect = body.Effect
	}
	if body.Powerup != nil {
		s.Powerup = body.Powerup
	}
	if body.Gradient != nil {
		s.Gradient = body.Gradient
	}
	if body.Speed != nil {
		s.Speed = body.Speed
	}
	switch {
	case body.XY != nil:
		s.XY, s.ColorMode = body.XY, "xy"
	case body.CT != nil:
		s.CT, s.ColorMode = body.CT, "ct"
	case body.Hue != nil:
		s.Hue, s.ColorMode = body.Hue, "hs"
		if body.Sat != nil {
			s.Sat = body.Sat
		}
	}
	return s
}

// defaultTransition is the transition a bridge applies when a command sets
// none: 4, in tenths of a second (Hue developer documentation, v1 Lights API,
// "Set light state"; docs/hue-behaviour.md, "Transition time").
const defaultTransition = 4

// SettleTime is how long after a command the bridge surely shows it:
// once its transition is over. Reports disagree on what a bridge shows
// during a transition (the end value at once in home-assistant/core#108234,
// values on the way in Foddy/node-red-contrib-huemagic#25); after it, both
// show the end value. So a read during the transition confirms a write it
// shows and contradicts nothing; a read after it that still does not show
// the write is treated as any read: the write is sent again, up to the
// stall breaker.
func SettleTime(sent StateBody) time.Duration {
	t := defaultTransition
	if sent.TransitionTime != nil {
		t = *sent.TransitionTime
	}
	return time.Duration(t) * 100 * time.Millisecond
}

package model

import "time"

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

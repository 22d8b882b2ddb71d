package huesim

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// LightState is the "state" object of a light as the bridge reports it.
type LightState struct {
	On        bool       `json:"on"`
	Bri       int        `json:"bri"`
	Hue       int        `json:"hue"`
	Sat       int        `json:"sat"`
	Effect    string     `json:"effect"`
	XY        [2]float64 `json:"xy"`
	CT        int        `json:"ct"`
	Alert     string     `json:"alert"`
	ColorMode string     `json:"colormode"`
	Mode      string     `json:"mode"`
	Reachable bool       `json:"reachable"`
	// V2Effect is the CLIP v2 effect the bulb plays (effects.go); only
	// the v2 view shows it, so it is not part of the v1 state's JSON.
	V2Effect string `json:"-"`
	// V2Powerup is the CLIP v2 powerup setting (powerup.go), nil for the
	// factory one; like V2Effect only the v2 view shows it.
	V2Powerup *Powerup `json:"-"`
	// V2Gradient is the CLIP v2 gradient (gradient.go), nil for none set
	// yet; only the v2 view shows it.
	V2Gradient *Gradient `json:"-"`
	// V2Speed is the CLIP v2 dynamics.speed (dynamics.go); only the v2
	// view shows it.
	V2Speed float64 `json:"-"`
}

// fields is the state as JSON fields, before the model picks those it
// reports.
func (st LightState) fields() map[string]any {
	return map[string]any{
		"on": st.On, "bri": st.Bri, "hue": st.Hue, "sat": st.Sat, "effect": st.Effect, "xy": st.XY,
		"ct": st.CT, "alert": st.Alert, "colormode": st.ColorMode, "mode": st.Mode, "reachable": st.Reachable,
	}
}

// stateParams lists the attributes of a state PUT in the order the answer
// array reports them; anything else is error 6.
var stateParams = []string{
	"on", "bri", "hue", "sat", "xy", "ct", "alert", "effect", "transitiontime",
	"bri_inc", "sat_inc", "hue_inc", "ct_inc",
}

// needsOn are the attributes a bulb that is off refuses (error 201) unless
// the same body switches it on.
var needsOn = map[string]bool{
	"bri": true, "hue": true, "sat": true, "xy": true, "ct": true, "effect": true,
	"bri_inc": true, "sat_inc": true, "hue_inc": true, "ct_inc": true,
}

// intRanges are the valid values of the integer attributes. bri 255 is
// accepted and stored as 254 (PhilipsHue SDK issue #15, its maintainer).
var intRanges = map[string][2]int{
	"bri": {1, 255}, "hue": {0, 65535}, "sat": {0, 254}, "ct": {153, 500},
	"transitiontime": {0, 65535},
	"bri_inc":        {-254, 254}, "sat_inc": {-254, 254}, "hue_inc": {-65534, 65534}, "ct_inc": {-65534, 65534},
}

// commandKind says whether a state body is a light's command or a group's
// action: a group applies to each light what that light can show, without
// error 6 or 201 (the Hue app and Home Assistant send group actions to
// rooms of mixed bulbs, and the bridge takes them).
type commandKind int

const (
	lightCommand commandKind = iota
	groupAction
)

// applyState applies a state PUT to st, a bulb of model m, and returns the
// bridge's answer, one element per attribute. base is the address prefix
// (/lights/1/state).
func applyState(st *LightState, m Model, strict bool, base string, body map[string]json.RawMessage, kind commandKind) []result {
	var out []result
	turningOn := false
	if raw, ok := body["on"]; ok {
		_ = json.Unmarshal(raw, &turningOn)
	}
	off := !st.On && !turningOn
	colour := ""
	for _, p := range stateParams {
		raw, ok := body[p]
		if !ok {
			continue
		}
		addr := base + "/" + p
		if !m.takes(p) {
			// One entry per attribute the bulb lacks; the others still
			// apply (node-hue-api #93: ct on an Iris; WinHue #176: bri on
			// a plug).
			if kind == lightCommand {
				out = append(out, failure(ErrParameterNotAvail, addr, fmt.Sprintf("parameter, %s, not available", p)))
			}
			continue
		}
		if off && needsOn[p] {
			if kind == lightCommand {
				out = append(out, deviceOff(addr, p))
			}
			continue
		}
		r, mode := applyParam(st, m, addr, p, raw, strict)
		out = append(out, r)
		colour = strongerMode(colour, mode)
	}
	if colour != "" {
		st.ColorMode = colour
		syncColour(st, m, colour)
	}
	return append(out, unknownParams(base, body)...)
}

// syncColour keeps a colour bulb's hue/sat and xy one colour, as a bridge
// reports them (hsxy.go): hue/sat sent show as the xy the bulb takes, and
// are reported back from it; xy sent is reported as hue/sat too.
func syncColour(st *LightState, m Model, mode string) {
	if !m.colour() {
		return
	}
	switch mode {
	case "hs":
		st.XY = hsToXY(st.Hue, st.Sat, m.Gamut)
	case "xy":
	default:
		return
	}
	// A white has no hue: it keeps the one last set.
	if hue, sat := xyToHS(st.XY); sat > 0 {
		st.Hue, st.Sat = hue, sat
	} else {
		st.Sat = 0
	}
}

// takes reports whether a bulb of the model has the state attribute p.
func (m Model) takes(p string) bool {
	switch p {
	case "on", "alert", "transitiontime":
		return true
	case "bri", "bri_inc":
		return m.dimmable()
	case "ct", "ct_inc":
		return m.colourTemperature()
	case "hue", "sat", "xy", "effect", "hue_inc", "sat_inc":
		return m.colour()
	}
	return false
}

// strongerMode keeps the colour mode the bridge shows when several colour
// attributes arrive together: xy beats ct beats hs.
func strongerMode(a, b string) string {
	rank := map[string]int{"": 0, "hs": 1, "ct": 2, "xy": 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func unknownParams(base string, body map[string]json.RawMessage) []result {
	known := map[string]bool{}
	for _, p := range stateParams {
		known[p] = true
	}
	var extra []string
	for k := range body {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	out := make([]result, 0, len(extra))
	for _, k := range extra {
		out = append(out, failure(ErrParameterNotAvail, base+"/"+k, fmt.Sprintf("parameter, %s, not available", k)))
	}
	return out
}

// applyParam validates and applies one attribute. It returns the answer
// element and the colour mode the attribute selects ("" if none). The answer
// echoes the value as sent, or 254 for 255
// (PhilipsHueSDK-Java-MultiPlatform-Android issue 15; docs/hue-behaviour.md,
// "Answers to a command"); what the bulb then shows may differ (a clamped ct,
// an xy outside its gamut), as a real bridge shows at its next read.
func applyParam(st *LightState, m Model, addr, p string, raw json.RawMessage, strict bool) (result, string) {
	switch p {
	case "on":
		var v bool
		if json.Unmarshal(raw, &v) != nil {
			return invalidValue(addr, p, string(raw)), ""
		}
		st.On = v
		return success(addr, v), ""
	case "xy":
		return applyXY(st, m, addr, raw)
	case "alert":
		return applyEnum(&st.Alert, addr, p, raw, "none", "select", "lselect"), ""
	case "effect":
		return applyEnum(&st.Effect, addr, p, raw, "none", "colorloop"), ""
	}
	v, ok := intValue(raw, intRanges[p])
	if !ok {
		return invalidValue(addr, p, string(raw)), ""
	}
	if p == "bri" && v == 255 {
		v = 254
	}
	if ct := m.shownCT(); strict && p == "ct" && (v < ct[0] || v > ct[1]) {
		return invalidValue(addr, p, v), ""
	}
	return success(addr, v), applyInt(st, m, p, v)
}

// applyInt stores an integer attribute and returns the colour mode it selects.
// A colour temperature beyond the bulb's range shows as the nearest it has:
// "the light goes to the closest value it can produce" (Hue core concepts);
// ioBroker.hue PR #926: "the bridge silently clamps such values".
func applyInt(st *LightState, m Model, p string, v int) string {
	ct := m.shownCT()
	switch p {
	case "bri":
		st.Bri = v
	case "hue":
		st.Hue = v
		return "hs"
	case "sat":
		st.Sat = v
		return "hs"
	case "ct":
		st.CT = clamp(v, ct[0], ct[1])
		return "ct"
	case "bri_inc":
		st.Bri = clamp(st.Bri+v, 1, 254)
	case "sat_inc":
		st.Sat = clamp(st.Sat+v, 0, 254)
		return "hs"
	case "hue_inc":
		st.Hue = ((st.Hue+v)%65536 + 65536) % 65536 // hue wraps around the wheel
		return "hs"
	case "ct_inc":
		st.CT = clamp(st.CT+v, ct[0], ct[1])
		return "ct"
	}
	return "" // transitiontime only shapes the change; nothing to store
}

// applyXY shows the colour as the bulb can: the nearest point of its gamut
// (Hue core concepts; the nearest point of the triangle is what Philips'
// SDK and Home Assistant compute, HA PR #2095), at the bridge's precision.
func applyXY(st *LightState, m Model, addr string, raw json.RawMessage) (result, string) {
	var xy []float64
	if json.Unmarshal(raw, &xy) != nil || len(xy) != 2 || !unit(xy[0]) || !unit(xy[1]) {
		return invalidValue(addr, "xy", string(raw)), ""
	}
	shown := nearestInGamut(m.Gamut, [2]float64{xy[0], xy[1]})
	st.XY = [2]float64{reportedXY(shown[0]), reportedXY(shown[1])}
	return success(addr, xy), "xy"
}

func applyEnum(dst *string, addr, p string, raw json.RawMessage, allowed ...string) result {
	var v string
	if json.Unmarshal(raw, &v) == nil {
		for _, a := range allowed {
			if v == a {
				*dst = v
				return success(addr, v)
			}
		}
	}
	return invalidValue(addr, p, string(raw))
}

// intValue accepts a JSON number that is a whole number within r.
func intValue(raw json.RawMessage, r [2]int) (int, bool) {
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) {
		return 0, false
	}
	v := int(f)
	return v, v >= r[0] && v <= r[1]
}

func unit(f float64) bool { return f >= 0 && f <= 1 }

func clamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

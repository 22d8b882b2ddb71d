package huesim

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

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

// intRanges are the valid values of the integer attributes.
var intRanges = map[string][2]int{
	"bri": {1, 254}, "hue": {0, 65535}, "sat": {0, 254}, "ct": {153, 500},
	"transitiontime": {0, 65535},
	"bri_inc":        {-254, 254}, "sat_inc": {-254, 254}, "hue_inc": {-65534, 65534}, "ct_inc": {-65534, 65534},
}

// applyState applies a state PUT to st and returns the bridge's answer,
// one element per attribute. base is the address prefix (/lights/1/state).
// enforceOff is false for group actions, where the bridge applies what it
// can without error 201.
func applyState(st *LightState, base string, body map[string]json.RawMessage, enforceOff bool) []result {
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
		if off && needsOn[p] {
			if enforceOff {
				out = append(out, deviceOff(addr, p))
			}
			continue
		}
		r, mode := applyParam(st, addr, p, raw)
		out = append(out, r)
		colour = strongerMode(colour, mode)
	}
	if colour != "" {
		st.ColorMode = colour
	}
	return append(out, unknownParams(base, body)...)
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
// element and the colour mode the attribute selects ("" if none).
func applyParam(st *LightState, addr, p string, raw json.RawMessage) (result, string) {
	switch p {
	case "on":
		var v bool
		if json.Unmarshal(raw, &v) != nil {
			return invalidValue(addr, p, string(raw)), ""
		}
		st.On = v
		return success(addr, v), ""
	case "xy":
		return applyXY(st, addr, raw)
	case "alert":
		return applyEnum(&st.Alert, addr, p, raw, "none", "select", "lselect"), ""
	case "effect":
		return applyEnum(&st.Effect, addr, p, raw, "none", "colorloop"), ""
	}
	v, ok := intValue(raw, intRanges[p])
	if !ok {
		return invalidValue(addr, p, string(raw)), ""
	}
	return success(addr, v), applyInt(st, p, v)
}

// applyInt stores an integer attribute and returns the colour mode it selects.
func applyInt(st *LightState, p string, v int) string {
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
		st.CT = v
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
		st.CT = clamp(st.CT+v, 153, 500)
		return "ct"
	}
	return "" // transitiontime only shapes the change; nothing to store
}

func applyXY(st *LightState, addr string, raw json.RawMessage) (result, string) {
	var xy []float64
	if json.Unmarshal(raw, &xy) != nil || len(xy) != 2 || !unit(xy[0]) || !unit(xy[1]) {
		return invalidValue(addr, "xy", string(raw)), ""
	}
	st.XY = [2]float64{xy[0], xy[1]}
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

package hue

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/amimof/huego"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// xyTolerance absorbs the rounding of the bridge, which stores xy with four
// decimals; a larger difference is a real colour change.
const xyTolerance = 0.0005

// Desired is a HueLight's spec in the bridge's units.
type Desired struct {
	On  bool
	Bri *int
	XY  *[2]float64
	CT  *int
	Hue *int
	Sat *int
	// Transition is in tenths of a second, nil for the bridge's default.
	Transition *int
}

// DesiredFrom converts a spec. Ranges were checked by the API server.
func DesiredFrom(spec huev1alpha1.HueLightSpec) Desired {
	d := Desired{On: spec.On == nil || *spec.On, Bri: intPtr(spec.Brightness)}
	if c := spec.Color; c != nil {
		if len(c.XY) == 2 {
			d.XY = &[2]float64{float64(c.XY[0]), float64(c.XY[1])}
		}
		d.CT, d.Hue, d.Sat = intPtr(c.ColorTemperature), intPtr(c.Hue), intPtr(c.Saturation)
	}
	if spec.TransitionTime != nil {
		t := deciseconds(spec.TransitionTime.Duration)
		d.Transition = &t
	}
	return d
}

// deciseconds converts a duration to the bridge's transitiontime unit,
// rounding to the nearest 100 ms (the API server only lets multiples in).
func deciseconds(d time.Duration) int {
	return int(math.Round(float64(d) / float64(100*time.Millisecond)))
}

func intPtr(p *int32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// StateBody is the body of PUT /lights/<id>/state: only the attributes to
// change. On is always set, so a brightness or colour change on a light
// that is off carries on:true (the bridge answers error 201 otherwise).
type StateBody struct {
	On             *bool       `json:"on,omitempty"`
	Bri            *int        `json:"bri,omitempty"`
	Hue            *int        `json:"hue,omitempty"`
	Sat            *int        `json:"sat,omitempty"`
	XY             *[2]float64 `json:"xy,omitempty"`
	CT             *int        `json:"ct,omitempty"`
	TransitionTime *int        `json:"transitiontime,omitempty"`
}

// HuegoState converts the body for huego's SetLightState. It reports false
// when huego would change its meaning: huego always sends "on" (no
// omitempty) and drops hue 0, sat 0 and transitiontime 0 (omitempty).
func (b StateBody) HuegoState() (huego.State, bool) {
	if b.On == nil || isZero(b.Hue) || isZero(b.Sat) || isZero(b.TransitionTime) {
		return huego.State{}, false
	}
	st := huego.State{On: *b.On}
	if b.Bri != nil {
		st.Bri = uint8(*b.Bri)
	}
	if b.Hue != nil {
		st.Hue = uint16(*b.Hue)
	}
	if b.Sat != nil {
		st.Sat = uint8(*b.Sat)
	}
	if b.XY != nil {
		st.Xy = []float32{float32(b.XY[0]), float32(b.XY[1])}
	}
	if b.CT != nil {
		st.Ct = uint16(*b.CT)
	}
	if b.TransitionTime != nil {
		st.TransitionTime = uint16(*b.TransitionTime)
	}
	return st, true
}

// key is the body as the bridge receives it, to compare bodies by value.
func (b StateBody) key() string {
	data, _ := json.Marshal(b) // plain values: cannot fail
	return string(data)
}

// FullBody is the whole state a HueLight wants, as a command: what a group
// command sends, since the lights of a group may differ in different ways.
// Like Compare it sets colour only by priority (xy, ct, hue/sat), and
// nothing but on/off for a light that should be off.
func FullBody(want Desired) StateBody {
	on := want.On
	b := StateBody{On: &on, TransitionTime: want.Transition}
	if !on {
		return b
	}
	b.Bri = want.Bri
	switch {
	case want.XY != nil:
		b.XY = want.XY
	case want.CT != nil:
		b.CT = want.CT
	case want.Hue != nil && want.Sat != nil:
		b.Hue, b.Sat = want.Hue, want.Sat
	}
	return b
}

func isZero(p *int) bool { return p != nil && *p == 0 }

// LightDiff is what differs between a HueLight's spec and its bulb.
type LightDiff struct {
	Body    StateBody
	Changes []string
}

// String lists the changes: "on: false -> true, brightness: 127 -> 254".
func (d *LightDiff) String() string { return strings.Join(d.Changes, ", ") }

// Compare returns what must be sent for the bulb to match want, or nil.
// A light that should be off is only compared on on/off: its brightness
// and colour cannot be changed while it is off (error 201) and do not show.
func Compare(want Desired, got LightSnapshot) *LightDiff {
	d := &LightDiff{}
	if want.On != got.On {
		d.Changes = append(d.Changes, fmt.Sprintf("on: %t -> %t", got.On, want.On))
	}
	if want.On {
		d.compareBrightness(want, got)
		d.compareColour(want, got)
	}
	if len(d.Changes) == 0 {
		return nil
	}
	on := want.On
	d.Body.On = &on
	d.Body.TransitionTime = want.Transition
	return d
}

func (d *LightDiff) compareBrightness(want Desired, got LightSnapshot) {
	if want.Bri != nil && *want.Bri != got.Bri {
		d.Body.Bri = want.Bri
		d.Changes = append(d.Changes, fmt.Sprintf("brightness: %d -> %d", got.Bri, *want.Bri))
	}
}

func (d *LightDiff) compareColour(want Desired, got LightSnapshot) {
	switch {
	case want.XY != nil:
		if got.ColorMode != "xy" || !near(got.XY, *want.XY) {
			d.Body.XY = want.XY
			d.Changes = append(d.Changes, fmt.Sprintf("xy: %s -> [%g, %g]", describeColour(got), want.XY[0], want.XY[1]))
		}
	case want.CT != nil:
		if got.ColorMode != "ct" || got.CT != *want.CT {
			d.Body.CT = want.CT
			d.Changes = append(d.Changes, fmt.Sprintf("colorTemperature: %s -> %d", describeColour(got), *want.CT))
		}
	case want.Hue != nil && want.Sat != nil:
		if got.ColorMode != "hs" || got.Hue != *want.Hue || got.Sat != *want.Sat {
			d.Body.Hue, d.Body.Sat = want.Hue, want.Sat
			d.Changes = append(d.Changes, fmt.Sprintf("hue/saturation: %s -> %d/%d", describeColour(got), *want.Hue, *want.Sat))
		}
	}
}

func near(a, b [2]float64) bool {
	return math.Abs(a[0]-b[0]) <= xyTolerance && math.Abs(a[1]-b[1]) <= xyTolerance
}

func describeColour(s LightSnapshot) string {
	switch s.ColorMode {
	case "xy":
		return fmt.Sprintf("xy [%g, %g]", s.XY[0], s.XY[1])
	case "ct":
		return fmt.Sprintf("ct %d", s.CT)
	case "hs":
		return fmt.Sprintf("hue/saturation %d/%d", s.Hue, s.Sat)
	}
	return "unknown"
}

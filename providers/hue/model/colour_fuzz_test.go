package model

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"k8s.io/utils/ptr"
)

// FuzzColourRoundTrip: for any spec the API server accepts, any bulb type
// and any state the bulb is in, what Tether sends (the spec projected onto
// the bulb) is within the bulb's ranges and attributes, survives the trip
// through JSON unchanged, and once a bridge has applied it (clamping,
// moving xy into the gamut and reading it back at four decimals) Compare
// finds nothing left to send: no endless correction loop.
func FuzzColourRoundTrip(f *testing.F) {
	// on, bri, mode (0 none, 1 xy, 2 ct, 3 hs), x, y, ct, hue, sat, transition (tenths, <0 none),
	// then the bulb: on, bri, colormode (0 xy, 1 ct, 2 hs, 3 none), x, y, ct, hue, sat.
	f.Add(true, uint8(254), uint8(0), 0.0, 0.0, uint16(0), uint16(0), uint8(0), int32(-1),
		false, uint8(127), uint8(1), 0.3, 0.3, uint16(366), uint16(0), uint8(0))
	f.Add(true, uint8(0), uint8(1), 0.30004, 0.4, uint16(0), uint16(0), uint8(0), int32(15),
		true, uint8(1), uint8(0), 0.3, 0.4, uint16(153), uint16(10), uint8(10))
	f.Add(true, uint8(200), uint8(1), 1.0, 0.0, uint16(0), uint16(0), uint8(0), int32(0),
		true, uint8(1), uint8(0), 0.99999, 0.00004, uint16(153), uint16(10), uint8(10))
	f.Add(true, uint8(1), uint8(2), 0.0, 0.0, uint16(500-153), uint16(0), uint8(0), int32(65535),
		true, uint8(254), uint8(1), 0.0, 0.0, uint16(500), uint16(0), uint8(0))
	f.Add(true, uint8(1), uint8(3), 0.0, 0.0, uint16(0), uint16(0), uint8(0), int32(0),
		true, uint8(254), uint8(2), 0.0, 0.0, uint16(0), uint16(65535), uint8(254))
	f.Add(true, uint8(253), uint8(3), 0.0, 0.0, uint16(0), uint16(65535), uint8(254), int32(4),
		false, uint8(0), uint8(3), math.NaN(), math.Inf(1), uint16(0), uint16(0), uint8(255))
	f.Add(false, uint8(10), uint8(2), 0.5, 0.5, uint16(100), uint16(1), uint8(1), int32(7),
		true, uint8(3), uint8(1), 0.0, 0.0, uint16(300), uint16(0), uint8(0))
	f.Add(true, uint8(100), uint8(1), -0.25, 1e300, uint16(0), uint16(0), uint8(0), int32(-5),
		true, uint8(100), uint8(0), 0.12345, 0.54321, uint16(0), uint16(0), uint8(0))

	f.Fuzz(func(t *testing.T,
		on bool, bri, mode uint8, x, y float64, ct, hue uint16, sat uint8, transition int32,
		bulbOn bool, bulbBri, bulbMode uint8, bulbX, bulbY float64, bulbCT, bulbHue uint16, bulbSat uint8) {

		spec := validDesired(on, bri, mode, x, y, ct, hue, sat, transition)
		light := fuzzBulbs[int(bulbMode/4)%len(fuzzBulbs)]
		want := Project(spec, light).Want
		bulb := bulbState(bulbOn, bulbBri, bulbMode, bulbX, bulbY, bulbCT, bulbHue, bulbSat)

		d := Compare(want, bulb)
		if d == nil {
			return
		}
		checkBodyInRange(t, d.Body)
		checkBodyFits(t, d.Body, light.Capabilities)
		if !want.On && (d.Body.Bri != nil || d.Body.XY != nil || d.Body.CT != nil || d.Body.Hue != nil || d.Body.Sat != nil) {
			t.Fatalf("switching off sends more than on/off: %+v", d.Body)
		}
		checkWire(t, d.Body)

		// The cache's view after the bridge accepted the body.
		if again := Compare(want, bulb.Applied(d.Body)); again != nil {
			t.Fatalf("cache after applying %+v still differs: %s", d.Body, again)
		}
		// The bridge's own view on the next poll.
		after := bridgeApplies(bulb, d.Body, light.Capabilities)
		if again := Compare(want, after); again != nil {
			t.Fatalf("next poll after applying %+v still differs: %s (endless corrections)", d.Body, again)
		}
	})
}

// validDesired maps arbitrary numbers onto a HueLight's spec the CRD
// accepts, in the model's units (as providers/hue's desiredFrom converts
// it): brightness 1-254, xy in [0, 1], 153-500 mireds, hue 0-65535,
// saturation 0-254, a transition of whole tenths up to 65535.
func validDesired(on bool, bri, mode uint8, x, y float64, ct, hue uint16, sat uint8, transition int32) Desired {
	d := Desired{On: on}
	if bri != 0 {
		d.Bri = ptr.To(int(bri%254) + 1)
	}
	switch mode % 4 {
	case 1:
		d.XY = &[2]float64{unit(x), unit(y)}
	case 2:
		d.CT = ptr.To(153 + int(ct)%348)
	case 3:
		d.Hue, d.Sat = ptr.To(int(hue)), ptr.To(int(sat)%255)
	}
	if transition >= 0 {
		d.Transition = ptr.To(int(transition % 65536))
	}
	return d
}

// unit maps any float onto [0, 1], as the CRD's Minimum/Maximum demand.
func unit(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0.5
	}
	v = math.Abs(v)
	if v > 1 {
		v = math.Mod(v, 1)
	}
	return v
}

// bulbState is any state a bridge may report, including odd ones.
func bulbState(on bool, bri, mode uint8, x, y float64, ct, hue uint16, sat uint8) LightState {
	st := LightState{On: on, Bri: ptr.To(int(bri)), CT: ptr.To(int(ct)), Hue: ptr.To(int(hue)), Sat: ptr.To(int(sat)),
		Reachable: true, XY: &[2]float64{float64(float32(x)), float64(float32(y))}}
	st.ColorMode = [...]string{"xy", "ct", "hs", ""}[mode%4]
	return st
}

func checkBodyInRange(t *testing.T, b StateBody) {
	t.Helper()
	if b.On == nil {
		t.Fatalf("body without on: %+v", b)
	}
	inRange := func(what string, p *int, lo, hi int) {
		if p != nil && (*p < lo || *p > hi) {
			t.Fatalf("%s %d outside %d..%d: %+v", what, *p, lo, hi, b)
		}
	}
	inRange("bri", b.Bri, 1, 254)
	inRange("ct", b.CT, 153, 500)
	inRange("hue", b.Hue, 0, 65535)
	inRange("sat", b.Sat, 0, 254)
	inRange("transitiontime", b.TransitionTime, 0, 65535)
	if b.XY != nil {
		for _, v := range b.XY {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("xy %v outside 0..1", *b.XY)
			}
		}
	}
	colours := 0
	for _, set := range []bool{b.XY != nil, b.CT != nil, b.Hue != nil || b.Sat != nil} {
		if set {
			colours++
		}
	}
	if colours > 1 {
		t.Fatalf("several colour modes in one body (the bridge would pick one): %+v", b)
	}
}

// checkWire: the body reaches the bridge unchanged.
func checkWire(t *testing.T, b StateBody) {
	t.Helper()
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatalf("marshal %+v: %v", b, err)
	}
	var back StateBody
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, b) {
		t.Fatalf("raw PUT body %s decodes to %+v, want %+v (%v)", data, back, b, err)
	}
}

// fuzzBulbs are the bulb types a fuzzed spec meets.
var fuzzBulbs = []Light{extendedC, colourA, ambiance, white, plug, thirdPart, unknown}

// checkBodyFits: nothing is sent that the bulb lacks or cannot show.
func checkBodyFits(t *testing.T, b StateBody, c Capabilities) {
	t.Helper()
	if (b.Bri != nil && !c.Dimmable) || ((b.XY != nil || b.Hue != nil) && !c.Color) || (b.CT != nil && c.ColorTemperature == nil) {
		t.Fatalf("body %+v for a bulb of %+v", b, c)
	}
	if b.CT != nil && (*b.CT < c.ColorTemperature.Min || *b.CT > c.ColorTemperature.Max) {
		t.Fatalf("ct %d outside the bulb's %+v", *b.CT, *c.ColorTemperature)
	}
	if b.XY != nil && c.Gamut != nil && dist2(c.Gamut.nearest(*b.XY), *b.XY) > 1e-8 {
		t.Fatalf("xy %v outside the bulb's gamut %+v", *b.XY, *c.Gamut)
	}
}

// bridgeApplies is what a v1 bridge reports after accepting body for a
// bulb of c: ct clamped, xy in the gamut and read back at four decimals
// (as the simulator does, see huesim's reportedXY), the colour mode of the
// colour just set.
func bridgeApplies(st LightState, b StateBody, c Capabilities) LightState {
	st = st.Applied(b)
	if b.CT != nil && c.ColorTemperature != nil {
		v := min(max(*b.CT, c.ColorTemperature.Min), c.ColorTemperature.Max)
		st.CT = &v
	}
	if b.XY != nil {
		p := *b.XY
		if c.Gamut != nil {
			p = c.Gamut.nearest(p)
		}
		read := func(v float64) float64 { return math.Floor(math.Min(math.Round(v*65535), 65279)/65536*1e4) / 1e4 }
		st.XY = &[2]float64{read(p[0]), read(p[1])}
	}
	return st
}

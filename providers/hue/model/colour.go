package model

import "math"

// Colours in CIE xy: the triangle of colours a bulb can show (its gamut)
// and the nearest point of it, for projecting a wanted colour onto it, and
// hue/saturation as the xy a bulb shows.
//
// The geometry of a gamut. The bridge takes "the closest value it can
// produce" (Hue core concepts); the nearest point of the triangle is how
// Philips' SDK and Home Assistant compute it (HA PR #2095).

// Area is the triangle's area: a reported triangle with none is no gamut.
func (g Gamut) Area() float64 {
	return math.Abs(cross(sub(g.Green, g.Red), sub(g.Blue, g.Red))) / 2
}

// contains reports whether p is inside the triangle or on its edge.
func (g Gamut) contains(p [2]float64) bool {
	d1 := cross(sub(g.Green, g.Red), sub(p, g.Red))
	d2 := cross(sub(g.Blue, g.Green), sub(p, g.Green))
	d3 := cross(sub(g.Red, g.Blue), sub(p, g.Blue))
	const eps = 1e-12
	hasNeg := d1 < -eps || d2 < -eps || d3 < -eps
	hasPos := d1 > eps || d2 > eps || d3 > eps
	return !(hasNeg && hasPos)
}

// nearest is p when the bulb can show it, otherwise the closest point of
// the triangle's edges.
func (g Gamut) nearest(p [2]float64) [2]float64 {
	if g.contains(p) {
		return p
	}
	best, bestDist := p, math.Inf(1)
	for _, e := range [][2][2]float64{{g.Red, g.Green}, {g.Green, g.Blue}, {g.Blue, g.Red}} {
		q := closestOnSegment(e[0], e[1], p)
		if d := dist2(p, q); d < bestDist {
			best, bestDist = q, d
		}
	}
	return best
}

func closestOnSegment(a, b, p [2]float64) [2]float64 {
	ab := sub(b, a)
	t := dot(sub(p, a), ab) / dot(ab, ab)
	t = math.Max(0, math.Min(1, t))
	return [2]float64{a[0] + t*ab[0], a[1] + t*ab[1]}
}

func sub(a, b [2]float64) [2]float64 { return [2]float64{a[0] - b[0], a[1] - b[1]} }
func dot(a, b [2]float64) float64    { return a[0]*b[0] + a[1]*b[1] }
func cross(a, b [2]float64) float64  { return a[0]*b[1] - a[1]*b[0] }
func dist2(a, b [2]float64) float64  { d := sub(a, b); return dot(d, d) }

// Hue/saturation as a bulb shows it. A colour bulb holds one colour, as CIE
// xy; a v1 bridge reports hue, sat AND xy derived from it, so hue/sat sent
// come back after the bridge's conversion, not as sent (hue 49333/sat 209
// read back as xy [0.247, 0.1318], ioBroker.hue-extended issue 11; round
// trips do not return the original, HA PR #14113; docs/hue-behaviour.md), and
// CLIP v2 has no hue/sat at all, only xy. So Tether converts a spec's hue/sat
// to xy itself: to send it to a v2 bridge, and to compare what a v1 bridge
// reports with the precision that conversion allows.
//
// The conversion is the one Philips publishes for applications, "Color
// conversion formulas RGB to xy and back" (Hue developer site, application
// design guidance; the same steps in PhilipsHue/PhilipsHueSDK-iOS-OSX,
// ApplicationDesignNotes/"RGB to xy Color conversion.md"), which Home
// Assistant uses too (homeassistant/util/color.py: color_hs_to_xy ->
// color_RGB_to_xy_brightness, with the gamut's nearest point): hue/sat as
// HSV at full value -> RGB -> sRGB gamma expanded -> XYZ with the "Wide RGB
// D65" matrix -> xy -> the nearest point of the bulb's gamut.

// hsTolerance is how far apart, in xy, two hue/sat colours may be and still
// be one colour to a bridge: a bridge reports hue/sat rounded to whole
// steps after its conversion (one saturation step moves a saturated colour
// by about 0.0012) and xy at four decimals. A larger difference is a colour
// change.
const hsTolerance = 0.003

// wideRGBD65 is the "Wide RGB D65" RGB -> XYZ matrix of Philips' formulas.
var wideRGBD65 = [3][3]float64{
	{0.664511, 0.154324, 0.162028},
	{0.283881, 0.668433, 0.047685},
	{0.000088, 0.072310, 0.986039},
}

// HueSatToXY converts hue (0-65535) and sat (0-254) to the xy a bulb of gamut
// g shows (any colour when g is nil), at the four decimals bridges report.
func HueSatToXY(hue, sat int, g *Gamut) [2]float64 {
	h := float64(((hue%65536)+65536)%65536) / 65536
	s := math.Max(0, math.Min(254, float64(sat))) / 254
	r, gr, b := hsvToRGB(h, s)
	var rgb [3]float64
	for i, v := range []float64{r, gr, b} {
		rgb[i] = expandGamma(v)
	}
	var xyz [3]float64
	for i := range 3 {
		xyz[i] = wideRGBD65[i][0]*rgb[0] + wideRGBD65[i][1]*rgb[1] + wideRGBD65[i][2]*rgb[2]
	}
	sum := xyz[0] + xyz[1] + xyz[2]
	xy := [2]float64{xyz[0] / sum, xyz[1] / sum}
	if g != nil {
		xy = g.nearest(xy)
	}
	return [2]float64{RoundXY(xy[0]), RoundXY(xy[1])}
}

// expandGamma undoes sRGB's gamma (Philips' step 2).
func expandGamma(v float64) float64 {
	if v > 0.04045 {
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return v / 12.92
}

// hsvToRGB is HSV at full value, h and s in [0, 1].
func hsvToRGB(h, s float64) (r, g, b float64) {
	h6 := h * 6
	f := h6 - math.Floor(h6)
	p, q, t := 1-s, 1-s*f, 1-s*(1-f)
	switch int(h6) % 6 {
	case 0:
		return 1, t, p
	case 1:
		return q, 1, p
	case 2:
		return p, 1, t
	case 3:
		return p, q, 1
	case 4:
		return t, p, 1
	default:
		return 1, p, q
	}
}

// showsHueSat reports whether a v1 bridge's report shows the hue/sat
// wanted, as one colour after its conversion: the xy it reports (the colour
// the bulb took) or, failing that, the hue/sat it reports, converted as
// the wanted ones are, within hsTolerance. The colour mode is not asked
// for: it "cannot be trusted" (home-assistant/core PR #14154), the colour
// can.
func showsHueSat(hue, sat int, got LightState, g *Gamut) bool {
	if got.Hue != nil && got.Sat != nil && *got.Hue == hue && *got.Sat == sat {
		return true
	}
	want := HueSatToXY(hue, sat, g)
	if got.XY != nil && (got.ColorMode == "hs" || got.ColorMode == "xy") && xyDistance(*got.XY, want) <= hsTolerance {
		return true
	}
	if got.Hue != nil && got.Sat != nil && (got.ColorMode == "hs" || got.ColorMode == "") {
		return xyDistance(HueSatToXY(*got.Hue, *got.Sat, g), want) <= hsTolerance
	}
	return false
}

func xyDistance(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// RoundXY rounds to the four decimals a bridge reports xy with.
func RoundXY(v float64) float64 { return math.Round(v*1e4) / 1e4 }

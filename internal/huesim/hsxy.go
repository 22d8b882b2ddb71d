package huesim

import "math"

// A colour bulb holds one colour, as CIE xy; the bridge reports hue, sat AND
// xy for it, derived from the light (setting hue 49333/sat 209 gave xy
// [0.247, 0.1318], ioBroker.hue-extended #11; docs/hue-behaviour.md), so a
// hue/sat round trip does not return what was sent (HA PR #14113), and a CLIP
// v2 client, which has no hue/sat at all, sees the same colour as xy.
//
// The bridge's own conversion is not published. The simulator uses the one
// Philips publishes for applications, "Color conversion formulas RGB to xy
// and back" (Hue developer site, application design guidance; the same
// steps in PhilipsHue/PhilipsHueSDK-iOS-OSX ApplicationDesignNotes/"RGB to
// xy Color conversion.md"), which Home Assistant also uses
// (homeassistant/util/color.py color_hs_to_xy -> color_RGB_to_xy_brightness):
// hue/sat as HSV at full value -> RGB -> sRGB gamma expanded -> XYZ with the
// "Wide RGB D65" matrix -> xy, then the nearest point of the bulb's gamut.
// Back from xy the simulator uses that matrix's exact inverse, so that its
// own round trips are consistent.

// wideRGBD65 is the "Wide RGB D65" RGB -> XYZ matrix of Philips' formulas.
var wideRGBD65 = [3][3]float64{
	{0.664511, 0.154324, 0.162028},
	{0.283881, 0.668433, 0.047685},
	{0.000088, 0.072310, 0.986039},
}

// hsToXY is the colour hue (0-65535) and sat (0-254) select, as the bulb
// of gamut g holds it, at the precision the bridge reports.
func hsToXY(hue, sat int, g [3][2]float64) [2]float64 {
	shown := nearestInGamut(g, hsChromaticity(hue, sat))
	return [2]float64{reportedXY(shown[0]), reportedXY(shown[1])}
}

// hsChromaticity is the xy of hue/sat, before any gamut.
func hsChromaticity(hue, sat int) [2]float64 {
	r, g, b := hsvToRGB(float64(hue%65536)/65536, float64(clampInt(sat, 0, 254))/254)
	return xyOfXYZ(mulVec(wideRGBD65, [3]float64{expandGamma(r), expandGamma(g), expandGamma(b)}))
}

// xyToHS is the hue and sat a bridge reports for a bulb showing xy.
func xyToHS(xy [2]float64) (hue, sat int) {
	if xy[1] <= 0 {
		return 0, 0
	}
	XYZ := [3]float64{xy[0] / xy[1], 1, (1 - xy[0] - xy[1]) / xy[1]}
	rgb := mulVec(invert3(wideRGBD65), XYZ)
	peak := math.Max(rgb[0], math.Max(rgb[1], rgb[2]))
	for i := range rgb {
		rgb[i] = compressGamma(math.Max(rgb[i], 0) / peak)
	}
	h, s := rgbToHS(rgb[0], rgb[1], rgb[2])
	return int(math.Round(h*65535)) % 65536, int(math.Round(s * 254))
}

func expandGamma(v float64) float64 {
	if v > 0.04045 {
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return v / 12.92
}

func compressGamma(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

func xyOfXYZ(v [3]float64) [2]float64 {
	sum := v[0] + v[1] + v[2]
	if sum <= 0 {
		return [2]float64{0.3127, 0.329} // black: D65 white, as good as any
	}
	return [2]float64{v[0] / sum, v[1] / sum}
}

// hsvToRGB is HSV at full value, h and s in [0, 1).
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

// rgbToHS is the hue and saturation (both in [0, 1]) of an RGB colour.
func rgbToHS(r, g, b float64) (h, s float64) {
	hi, lo := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if hi <= 0 || hi == lo {
		return 0, 0
	}
	d := hi - lo
	switch hi {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	if h < 0 {
		h += 6
	}
	return h / 6, d / hi
}

func mulVec(m [3][3]float64, v [3]float64) [3]float64 {
	var out [3]float64
	for i := range 3 {
		out[i] = m[i][0]*v[0] + m[i][1]*v[1] + m[i][2]*v[2]
	}
	return out
}

// invert3 inverts a 3x3 matrix (by its adjugate).
func invert3(m [3][3]float64) [3][3]float64 {
	c := func(r0, c0, r1, c1 int) float64 { return m[r0][c0]*m[r1][c1] - m[r0][c1]*m[r1][c0] }
	adj := [3][3]float64{
		{c(1, 1, 2, 2), -c(0, 1, 2, 2), c(0, 1, 1, 2)},
		{-c(1, 0, 2, 2), c(0, 0, 2, 2), -c(0, 0, 1, 2)},
		{c(1, 0, 2, 1), -c(0, 0, 2, 1), c(0, 0, 1, 1)},
	}
	det := m[0][0]*adj[0][0] + m[0][1]*adj[1][0] + m[0][2]*adj[2][0]
	for i := range 3 {
		for j := range 3 {
			adj[i][j] /= det
		}
	}
	return adj
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

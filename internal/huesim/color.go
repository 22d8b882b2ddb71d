package huesim

import (
	"fmt"
	"math"
)

// The web page paints colours computed here, so the page holds no colour
// science and the conversion is unit-tested in Go.

// offColor is what a bulb that is off looks like on the page: dark, but
// still visible against the page's background.
const offColor = "#1f2229"

// rgb is a colour with channels in [0, 1].
type rgb struct{ r, g, b float64 }

func (c rgb) hex() string {
	to8 := func(v float64) int { return int(math.Round(clamp01(v) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to8(c.r), to8(c.g), to8(c.b))
}

func (c rgb) scale(f float64) rgb { return rgb{c.r * f, c.g * f, c.b * f} }

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// SwatchColor is the CSS colour the bulb is set to, at full brightness,
// from whichever of xy, ct or hue/sat its colormode says is in force. It
// is shown even when the bulb is off, like the colour dot in the Hue app.
func SwatchColor(st LightState) string { return setColor(st).hex() }

// GlowColor is the CSS colour the bulb emits: dark when off, otherwise the
// set colour dimmed by bri. Dimming has a floor so that bri 1 still reads
// as "on" from the back of a room.
func GlowColor(st LightState) string {
	if !st.On {
		return offColor
	}
	const floor = 0.3
	level := floor + (1-floor)*float64(clampInt(st.Bri, 1, 254))/254
	return setColor(st).scale(level).hex()
}

func setColor(st LightState) rgb {
	switch st.ColorMode {
	case "xy":
		return xyToRGB(st.XY[0], st.XY[1])
	case "hs":
		return hsToRGB(st.Hue, st.Sat)
	default: // "ct", and white-only bulbs, which have no colormode
		return ctToRGB(st.CT)
	}
}

// xyToRGB converts CIE xy chromaticity to sRGB at full brightness, as
// Philips documents for its wide-gamut bulbs (D65 matrix, sRGB gamma),
// normalised so the brightest channel is 1.
func xyToRGB(x, y float64) rgb {
	if y <= 0 {
		return rgb{1, 1, 1}
	}
	X, Y, Z := x/y, 1.0, (1-x-y)/y
	c := rgb{
		r: X*1.656492 - Y*0.354851 - Z*0.255038,
		g: -X*0.707196 + Y*1.655397 + Z*0.036152,
		b: X*0.051713 - Y*0.121364 + Z*1.011530,
	}
	c = rgb{math.Max(c.r, 0), math.Max(c.g, 0), math.Max(c.b, 0)}
	if m := math.Max(c.r, math.Max(c.g, c.b)); m > 0 {
		c = c.scale(1 / m)
	}
	return rgb{gamma(c.r), gamma(c.g), gamma(c.b)}
}

// gamma applies the sRGB transfer function to a linear channel.
func gamma(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// hsToRGB converts the bridge's hue (0-65535 around the wheel) and sat
// (0-254) to RGB at full value.
func hsToRGB(hue, sat int) rgb {
	h := float64(clampInt(hue, 0, 65535)) / 65536 * 6
	s := float64(clampInt(sat, 0, 254)) / 254
	f := h - math.Floor(h)
	p, q, t := 1-s, 1-s*f, 1-s*(1-f)
	switch int(h) {
	case 0:
		return rgb{1, t, p}
	case 1:
		return rgb{q, 1, p}
	case 2:
		return rgb{p, 1, t}
	case 3:
		return rgb{p, q, 1}
	case 4:
		return rgb{t, p, 1}
	default:
		return rgb{1, p, q}
	}
}

// ctToRGB converts a colour temperature in mireds to RGB using Tanner
// Helland's fit of the black-body curve, good enough for a screen. The
// bridge's range, 153-500 mireds, is 2000-6535 K, all below the fit's
// 6600 K knee, so red is always full and only the lower branch is needed.
func ctToRGB(mired int) rgb {
	k := 1e6 / float64(clampInt(mired, 153, 500)) / 100 // hundreds of kelvin
	return rgb{
		r: 1,
		g: clamp01((99.4708025861*math.Log(k) - 161.1195681661) / 255),
		b: clamp01((138.5177312231*math.Log(k-10) - 305.0447927307) / 255),
	}
}

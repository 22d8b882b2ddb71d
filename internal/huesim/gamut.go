package huesim

import "math"

// Where a colour lands on a bulb: the nearest point of its gamut, at the
// precision the bridge reports (lightstate.go and hsxy.go use them).

// reportedXY is a chromaticity coordinate as a bridge reports it: the bulb
// holds it as Zigbee CurrentX/Y, a 16-bit value capped at 65279
// (deconz-rest-plugin #973), and the bridge reports four decimals. The
// exact conversion back is not documented; dividing by 65536 and cutting
// to four decimals is what fits the one read-back seen from a real bridge:
// PUT xy [0.4, 0.4] reads [0.3999, 0.3999] (home-assistant/core #13944).
func reportedXY(v float64) float64 {
	raw := math.Min(math.Round(v*65535), 65279)
	return math.Floor(raw/65536*1e4) / 1e4
}

// nearestInGamut is p when the triangle holds it, else the nearest point of
// its edges.
func nearestInGamut(g [3][2]float64, p [2]float64) [2]float64 {
	if inTriangle(g, p) {
		return p
	}
	best, bestDist := p, math.Inf(1)
	for i := range 3 {
		a, b := g[i], g[(i+1)%3]
		ab := [2]float64{b[0] - a[0], b[1] - a[1]}
		t := ((p[0]-a[0])*ab[0] + (p[1]-a[1])*ab[1]) / (ab[0]*ab[0] + ab[1]*ab[1])
		t = math.Max(0, math.Min(1, t))
		q := [2]float64{a[0] + t*ab[0], a[1] + t*ab[1]}
		if d := (p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]); d < bestDist {
			best, bestDist = q, d
		}
	}
	return best
}

func inTriangle(g [3][2]float64, p [2]float64) bool {
	side := func(a, b [2]float64) float64 { return (b[0]-a[0])*(p[1]-a[1]) - (b[1]-a[1])*(p[0]-a[0]) }
	d1, d2, d3 := side(g[0], g[1]), side(g[1], g[2]), side(g[2], g[0])
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

package model

import "math"

// Colour geometry in CIE xy, for projecting a wanted colour onto the
// triangle a bulb can show. The bridge takes "the closest value it can
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

package model

import (
	"fmt"
	"math"
)

// The speed of what plays on a light: CLIP v2's dynamics.speed, 0 to 1
// (CLIP v2 API reference, "light", dynamics; aiohue's DynamicsFeature,
// models/feature.py; openhue-go v0.4.0's LightDynamics). "The speed is
// valid for the dynamic palette if the status is dynamic_palette or for
// the corresponding effect listed in status. In case of status none, the
// speed is not valid": a light reports speed_valid, and a speed it says is
// not valid says nothing of what it would play at. So a light that plays
// nothing reports no speed (LightState.Speed nil): a wanted speed is sent
// once and from then on known from what the bridge accepted (the cache's
// Assumed), and compared, and put back, while something plays. The v1 API
// has no speed.

// speedTolerance absorbs the bridge's precision: it reports speed as a
// 32-bit float of steps of its own (Home Assistant's Hue tests show a
// dynamic scene at 0.6269841194152832, 79/126:
// home-assistant/core, tests/components/hue/test_scene.py). A hundredth is
// above that and below any speed anyone tells apart.
const speedTolerance = 0.01

// NearSpeed reports whether two speeds are one at the bridge's precision.
func NearSpeed(a, b float64) bool { return math.Abs(a-b) <= speedTolerance }

// fitSpeed leaves out a speed the light cannot take: a v1 bridge, or a
// light without a dynamics object (a v2 bridge refuses the feature).
func (p *Projection) fitSpeed(want Desired, l Light) {
	c := l.Capabilities
	switch {
	case want.Speed == nil:
	case !c.V2:
		p.Want.Speed = nil
		p.note("dynamics.speed is a CLIP v2 feature and this light's bridge speaks the v1 API: dynamics.speed is ignored")
	case !c.Dynamics:
		p.Want.Speed = nil
		p.note("this bulb (%s) has no dynamics: dynamics.speed is ignored", describeBulb(l))
	}
}

// compareSpeed sends the speed when the light plays something at another
// one. A light that reports no valid speed is sent it (once: then the
// cache knows it from what the bridge accepted).
func (d *Diff) compareSpeed(want Desired, got LightState) {
	if want.Speed == nil || got.Speed != nil && NearSpeed(*got.Speed, *want.Speed) {
		return
	}
	d.Body.Speed = want.Speed
	shown := "unknown"
	if got.Speed != nil {
		shown = fmt.Sprint(*got.Speed)
	}
	d.Changes = append(d.Changes, fmt.Sprintf("dynamics.speed: %s -> %g", shown, *want.Speed))
}

// Package model is the light as Tether reasons about it, in the bridge's
// units: what a bulb is and can show, what it reports, what a HueLight (or
// a HueGroup's or HueScene's light) wants of it, and what to send. It is
// pure: no calls, no clock, and it imports neither the API types nor the
// reconciler's contract. The adapters (providers/hue) convert a spec into
// its Desired, the wire package translates a bridge's answers into its
// Light and sends its StateBody, and the session (bridge) keeps its states.
//
// How a wanted state flows through it:
//
//   - light.go is a bulb as its bridge describes it: Light, its
//     Capabilities (dimming, colour, a mired range, a Gamut) and the
//     LightState it reports, a nil field meaning not reported, with the
//     values only CLIP v2 lights have: an effect, the speed it plays at
//     (valid only while something plays), what the bulb does when power
//     returns (Powerup: a setting, compared whether the light is on or
//     off) and colours along a gradient light (Gradient).
//   - diff.go's Desired is a spec in the bridge's units. fit.go fits it to
//     the bulb, as a bridge would (Project), says what it changed (the
//     Ready condition's notes), and leaves out what the bridge refused with
//     the very value wanted (WithoutRefused); Fit is all of it in one
//     step, the one model call of a HueLight's pass, on the bulb as Tether
//     knows it (Known: the last read with what the bridge accepted since,
//     what it refused, what it does not report). colour.go is the geometry
//     of that fit (a gamut's nearest point) and hue/saturation as xy (a v2
//     bridge takes only xy, and a v1 bridge reports hue/sat after its own
//     conversion).
//   - diff.go compares the fitted Desired with a LightState (Compare) and
//     says what to send (Diff), or the whole state (FullBody) for a group
//     command or a scene; command.go is that command (StateBody), merged,
//     trimmed and keyed by value, and where the session's reads and the
//     bridge's answers meet: what a reported state shows of a command
//     (Shows), what it becomes once the bridge accepted one (Applied), and
//     from when it surely shows it (SettleTime).
//   - Each file holds one step for every attribute, CLIP v2's own
//     included: fit.go fits an effect, a speed, a powerup and a gradient
//     (or leaves it out, named, for a light without it or on a v1
//     bridge), diff.go compares them, command.go sends them; a command
//     with any of them goes to its light alone (StateBody.LightOnly).
//
// The units are the v1 API's: bri 1-254, ct in mireds, xy in CIE 1931,
// hue 0-65535, sat 0-254, transitiontime in 100 ms.
package model

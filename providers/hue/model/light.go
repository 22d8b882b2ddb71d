package model

// A bulb as its bridge describes it: what it is, what it can show, and
// what it reports of its state, in the bridge's units.

// Light is one bulb as its bridge describes it.
type Light struct {
	ID   string
	Name string
	// Type is the bridge's light type ("Extended color light") and ModelID
	// the product's model ("LCT015").
	Type         string
	ModelID      string
	Capabilities Capabilities
	State        LightState
}

// LightState is what the bridge reports of a bulb. A nil field is one the
// bridge does not report for it: unknown, never a reason to send.
type LightState struct {
	On        bool
	Reachable bool
	Bri       *int
	Hue       *int
	Sat       *int
	XY        *[2]float64
	CT        *int
	// ColorMode is the colour setting last used (xy, ct, hs); empty when
	// not reported.
	ColorMode string
	// Effect is the effect the light plays (CLIP v2's effects.status:
	// no_effect, candle, ...); nil for a light without effects, and on the
	// v1 API.
	Effect *string
	// Powerup is the light's CLIP v2 powerup setting (v2only.go); nil
	// for a light without one, and on the v1 API.
	Powerup *Powerup
	// Gradient is the light's CLIP v2 gradient (v2only.go); nil for a
	// light without one, and on the v1 API.
	Gradient *Gradient
	// Speed is the speed of what the light plays (CLIP v2's
	// dynamics.speed), nil when it says it is not valid (nothing plays),
	// for a light without dynamics, and on the v1 API (v2only.go).
	Speed *float64
}

// Capabilities is what a bulb can show.
type Capabilities struct {
	// Dimmable: it takes a brightness.
	Dimmable bool
	// Color: it takes xy (and hue/saturation, through HueSat or as xy).
	Color bool
	// HueSat: the bridge takes hue/saturation for it (v1 colour bulbs).
	// CLIP v2 has only xy, so a spec's hue/saturation goes as xy (colour.go).
	HueSat bool
	// ColorTemperature is its range in mireds; nil when it has none.
	ColorTemperature *MiredRange
	// Gamut is the triangle of colours it can show; nil when unknown (then
	// xy is sent as written, and the bridge maps it).
	Gamut *Gamut
	// V2 says the bridge describes the light in CLIP v2: only that API
	// has the features below, so on the v1 API a bulb has none of them,
	// whatever it could do on a v2 bridge.
	V2 bool
	// Effects are the effects the light lists (CLIP v2's
	// effects.effect_values, no_effect among them); nil when it has no
	// effects object: a light shows an effect only if it lists it.
	Effects []string
	// Powerup: the light has a powerup object (CLIP v2), so it takes a
	// powerup setting.
	Powerup bool
	// Gradient is what a gradient light reports of the feature; nil for a
	// light without it.
	Gradient *GradientCapabilities
	// Dynamics: the light has a dynamics object (CLIP v2), so it takes a
	// speed.
	Dynamics bool
}

// MiredRange is a colour-temperature range, inclusive.
type MiredRange struct{ Min, Max int }

// Gamut is a triangle in CIE xy: the colours a bulb can show.
type Gamut struct {
	Type             string // A, B, C or other
	Red, Green, Blue [2]float64
}

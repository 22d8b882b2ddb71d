package wire

import "math"

// CLIP v2's units as Tether's: a colour point and brightness in percent,
// shared by the light view, powerup, gradients and scene options.

// v2XY is a CLIP v2 colour point.
type v2XY struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// briOf is a v2 brightness as bri.
func briOf(brightness float64) int {
	return min(max(int(math.Round(brightness/100*253))+1, 1), 254)
}

// brightnessOf is bri (1-254) as v2 brightness (0-100 %). Real bridges'
// values fit (bri-1)/253*100 at two decimals (aiohue's real-bridge fixture,
// openhue-api's eventstream.yaml; derived, not documented: docs/hue-behaviour.md,
// "Brightness and colour temperature"); that keeps every bri through a round
// trip.
func brightnessOf(bri int) float64 {
	return math.Round(float64(min(max(bri, 1), 254)-1)/253*100*100) / 100
}

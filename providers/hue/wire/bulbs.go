package wire

import "github.com/tether-dev/tether/providers/hue/model"

// What both APIs take as known of bulbs' colours, where a bridge reports
// a gamut by its type or no usable colour-temperature range.

// v1Gamuts are the triangles of the gamut types, [red, green, blue], as
// peter-murray/hue-bridge-model lists them and real bridges report them.
var v1Gamuts = map[string]model.Gamut{
	"A": {Type: "A", Red: [2]float64{0.704, 0.296}, Green: [2]float64{0.2151, 0.7106}, Blue: [2]float64{0.138, 0.08}},
	"B": {Type: "B", Red: [2]float64{0.675, 0.322}, Green: [2]float64{0.409, 0.518}, Blue: [2]float64{0.167, 0.04}},
	"C": {Type: "C", Red: [2]float64{0.6915, 0.3083}, Green: [2]float64{0.17, 0.7}, Blue: [2]float64{0.1532, 0.0475}},
}

// The v1 API's colour-temperature bounds, used where a bulb reports none
// or a range that is not one (third-party bulbs report 0 and 65535, which
// Home Assistant ignores and aiohue maps to these).
const (
	minMireds = 153
	maxMireds = 500
)

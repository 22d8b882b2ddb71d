package huesim

import (
	"sort"
)

// The bulbs a simulated bridge can have. Every number comes from
// docs/hue-behaviour.md ("Light types, models and gamuts"), which cites its
// sources: model ids and gamut types from hueplusplus (HueDeviceTypes.cpp),
// gamut triangles from peter-murray/hue-bridge-model (ColorGamuts.ts, the
// same numbers real bridges report), state keys per light type from real GET
// /lights dumps (domoticz #3282, poinck/lampe #43, homebridge-hue #1184,
// WinHue #176), mindimlevel/maxlumen from real JSON where seen, else diyHue's
// light_types.

// Light types of the v1 API.
const (
	TypeExtendedColor    = "Extended color light"
	TypeColor            = "Color light"
	TypeColorTemperature = "Color temperature light"
	TypeDimmable         = "Dimmable light"
	TypeOnOffPlug        = "On/Off plug-in unit"
)

// Model is one bulb product as a bridge describes and drives it.
type Model struct {
	ID           string // modelid
	Type         string
	Manufacturer string
	ProductName  string
	Archetype    string
	MinDimLevel  int
	MaxLumen     int
	// GamutType and Gamut ([red, green, blue] in CIE xy) for colour types.
	GamutType string
	Gamut     [3][2]float64
	// CT is the colour-temperature range the bulb reports in
	// capabilities.control.ct, ShowsCT the one it actually shows when that
	// differs (third-party bulbs report 0-65535).
	CT, ShowsCT [2]int
	// Effects are the effect_values of its CLIP v2 effects feature; nil
	// for a bulb with no effects object (effects.go).
	Effects []string
	// Powerup: its light has a CLIP v2 powerup object (powerup.go).
	Powerup bool
	// Gradient is its CLIP v2 gradient feature; nil for a light without
	// a gradient object (gradient.go).
	Gradient *GradientCaps
}

var (
	gamutA = [3][2]float64{{0.704, 0.296}, {0.2151, 0.7106}, {0.138, 0.08}}
	gamutB = [3][2]float64{{0.675, 0.322}, {0.409, 0.518}, {0.167, 0.04}}
	gamutC = [3][2]float64{{0.6915, 0.3083}, {0.17, 0.7}, {0.1532, 0.0475}}
)

// Models are the bulbs the simulator knows, by model id.
var Models = map[string]Model{
	"LCT015": {ID: "LCT015", Type: TypeExtendedColor, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue color lamp",
		Archetype: "sultanbulb", MinDimLevel: 1000, MaxLumen: 800, GamutType: "C", Gamut: gamutC, CT: [2]int{153, 500}},
	"LCT001": {ID: "LCT001", Type: TypeExtendedColor, Manufacturer: "Philips", ProductName: "Hue color lamp",
		Archetype: "sultanbulb", MinDimLevel: 5000, MaxLumen: 600, GamutType: "B", Gamut: gamutB, CT: [2]int{153, 500}},
	"LLC010": {ID: "LLC010", Type: TypeColor, Manufacturer: "Philips", ProductName: "Hue Living colors Iris",
		Archetype: "huelivingcolorsiris", MinDimLevel: 10000, MaxLumen: 210, GamutType: "A", Gamut: gamutA},
	// A newer colour bulb with effects (effects.go) and a powerup setting
	// (powerup.go); its other numbers are
	// the LCT015's, the same product line (gamut C, docs/hue-behaviour.md).
	"LCA001": {ID: "LCA001", Type: TypeExtendedColor, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue color lamp",
		Archetype: "sultanbulb", MinDimLevel: 1000, MaxLumen: 800, GamutType: "C", Gamut: gamutC, CT: [2]int{153, 500},
		Effects: documentedEffects, Powerup: true},
	// A gradient lightstrip (gradient.go): LCX004, "Hue gradient
	// lightstrip", an Extended color light of 153-500 mireds showing 5
	// gradient points, as a real one reports itself through a deCONZ
	// gateway (home-assistant/core, tests/components/deconz/test_light.py);
	// 5 points_capable, effects no_effect, candle and fire, and a powerup
	// setting, as diyHue (diyhue/diyHue, an independent bridge) describes
	// its LCX004; the gradient modes openhue-go names. Gamut C,
	// min_dim_level and lumen are the LCT015's: a choice, not a record of
	// the product.
	"LCX004": {ID: "LCX004", Type: TypeExtendedColor, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue gradient lightstrip",
		Archetype: "huelightstrip", MinDimLevel: 1000, MaxLumen: 800, GamutType: "C", Gamut: gamutC, CT: [2]int{153, 500},
		Effects: []string{"no_effect", "candle", "fire"}, Powerup: true,
		Gradient: &GradientCaps{PointsCapable: 5, Modes: gradientModes}},
	"LTW001": {ID: "LTW001", Type: TypeColorTemperature, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue white ambiance lamp",
		Archetype: "classicbulb", MinDimLevel: 1000, MaxLumen: 806, CT: [2]int{153, 454}},
	"LWB010": {ID: "LWB010", Type: TypeDimmable, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue white lamp",
		Archetype: "classicbulb", MinDimLevel: 5000, MaxLumen: 806},
	"LOM001": {ID: "LOM001", Type: TypeOnOffPlug, Manufacturer: "Signify Netherlands B.V.", ProductName: "Hue Smart plug",
		Archetype: "plug"},
	// A third-party colour-temperature controller: it reports ct 0-65535
	// (as ioBroker.hue #224 shows third-party lights do) and shows 158-495
	// (its mirek_schema in aiohue's real-bridge fixture).
	"GL-C-006P": {ID: "GL-C-006P", Type: TypeColorTemperature, Manufacturer: "GLEDOPTO", ProductName: "Color temperature light",
		Archetype: "classicbulb", CT: [2]int{0, 65535}, ShowsCT: [2]int{158, 495}},
}

// DefaultModel is the model of bulbs given by name only.
const DefaultModel = "LCT015"

// ModelIDs lists the known model ids, sorted.
func ModelIDs() []string {
	ids := make([]string, 0, len(Models))
	for id := range Models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (m Model) colour() bool { return m.Type == TypeExtendedColor || m.Type == TypeColor }

func (m Model) colourTemperature() bool {
	return m.Type == TypeExtendedColor || m.Type == TypeColorTemperature
}

func (m Model) dimmable() bool { return m.Type != TypeOnOffPlug }

// shownCT is the range the bulb clamps colour temperatures to.
func (m Model) shownCT() [2]int {
	if m.ShowsCT != [2]int{} {
		return m.ShowsCT
	}
	return m.CT
}

// stateKeys are the fields GET /lights reports in "state" for the model's
// type (the table in docs/hue-behaviour.md, "Light types, models and gamuts").
func (m Model) stateKeys() []string {
	keys := []string{"on", "alert", "mode", "reachable"}
	if m.dimmable() {
		keys = append(keys, "bri")
	}
	if m.colour() {
		keys = append(keys, "hue", "sat", "effect", "xy", "colormode")
	}
	if m.colourTemperature() {
		keys = append(keys, "ct")
		if !m.colour() {
			keys = append(keys, "colormode")
		}
	}
	return keys
}

// control is capabilities.control as the bridge reports it.
func (m Model) control() map[string]any {
	c := map[string]any{}
	if !m.dimmable() {
		return c // an On/Off plug reports an empty control
	}
	c["mindimlevel"], c["maxlumen"] = m.MinDimLevel, m.MaxLumen
	if m.colour() {
		c["colorgamuttype"] = m.GamutType
		c["colorgamut"] = m.Gamut
	}
	if m.colourTemperature() {
		c["ct"] = map[string]int{"min": m.CT[0], "max": m.CT[1]}
	}
	return c
}

// HueSatXY is the xy a bulb of the model shows for hue/sat, as reported.
func HueSatXY(model string, hue, sat int) [2]float64 {
	return hsToXY(hue, sat, Models[model].Gamut)
}

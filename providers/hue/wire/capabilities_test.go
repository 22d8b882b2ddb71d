package wire

import (
	"encoding/json"
	"testing"

	"github.com/tether-dev/tether/providers/hue/model"
)

// Bulbs as client_v1 reads them from real types and controls.
var (
	extendedC = model.Light{ID: "1", Type: "Extended color light", ModelID: "LCT015", Capabilities: capabilitiesOf("Extended color light",
		v1Control{ColorGamutType: "C", ColorGamut: json.RawMessage(`[[0.6915,0.3083],[0.17,0.7],[0.1532,0.0475]]`)})}
	ambiance  = model.Light{ID: "3", Type: "Color temperature light", ModelID: "LTW001", Capabilities: capabilitiesOf("Color temperature light", ctControl(153, 454))}
	plug      = model.Light{ID: "5", Type: "On/Off plug-in unit", ModelID: "LOM001", Capabilities: capabilitiesOf("On/Off plug-in unit", v1Control{})}
	thirdPart = model.Light{ID: "6", Type: "Color temperature light", ModelID: "GL-C-006P", Capabilities: capabilitiesOf("Color temperature light", ctControl(0, 65535))}
)

func ctControl(lo, hi float64) v1Control {
	c := v1Control{}
	c.CT = &struct {
		Min float64 `json:"min"`
		Max float64 `json:"max"`
	}{lo, hi}
	return c
}

func TestCapabilitiesOf(t *testing.T) {
	if c := ambiance.Capabilities; c.Color || !c.Dimmable || *c.ColorTemperature != (model.MiredRange{Min: 153, Max: 454}) {
		t.Fatalf("LTW001: %+v", c)
	}
	if c := thirdPart.Capabilities; *c.ColorTemperature != (model.MiredRange{Min: 153, Max: 500}) {
		t.Fatalf("ct 0-65535 should read as the API's 153-500: %+v", c.ColorTemperature)
	}
	if c := plug.Capabilities; c.Dimmable || c.Color || c.ColorTemperature != nil {
		t.Fatalf("plug: %+v", c)
	}
	if g := extendedC.Capabilities.Gamut; g == nil || g.Type != "C" || g.Green != [2]float64{0.17, 0.7} {
		t.Fatalf("LCT015 gamut: %+v", g)
	}
}

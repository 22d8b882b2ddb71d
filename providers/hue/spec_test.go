package hue

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/model"
)

func TestDesiredFrom(t *testing.T) {
	cases := []struct {
		name string
		spec huev1alpha1.HueLightSpec
		want string // JSON of Desired
	}{
		{"the talk's manifest: on by default", huev1alpha1.HueLightSpec{Name: "hallway", Brightness: ptr.To[int32](254)},
			`{"On":true,"Bri":254,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"off", huev1alpha1.HueLightSpec{Name: "x", On: ptr.To(false)},
			`{"On":false,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"xy", huev1alpha1.HueLightSpec{Name: "x", Color: &huev1alpha1.Color{XY: []huev1alpha1.Chromaticity{0.3, 0.4}}},
			`{"On":true,"Bri":null,"XY":[0.3,0.4],"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"hue 0 sat 0 stay values", huev1alpha1.HueLightSpec{Name: "x", Color: &huev1alpha1.Color{Hue: ptr.To[int32](0), Saturation: ptr.To[int32](0)}},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":0,"Sat":0,"Transition":null,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"transition 1.5s is 15 tenths", huev1alpha1.HueLightSpec{Name: "x", TransitionTime: &metav1.Duration{Duration: 1500 * time.Millisecond}},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":15,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"instant transition is 0, not absent", huev1alpha1.HueLightSpec{Name: "x", TransitionTime: &metav1.Duration{}},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":0,"Effect":null,"Powerup":null,"Gradient":null,"Speed":null}`},
		{"an effect is passed as named", huev1alpha1.HueLightSpec{Name: "x", Effect: ptr.To("candle")},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":"candle","Powerup":null,"Gradient":null,"Speed":null}`},
		{"a speed is passed as a float", huev1alpha1.HueLightSpec{Name: "x", Dynamics: &huev1alpha1.Dynamics{Speed: ptr.To(huev1alpha1.Speed(0.25))}},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":null,"Gradient":null,"Speed":0.25}`},
		{"a gradient is passed as points and mode", huev1alpha1.HueLightSpec{Name: "x", Gradient: &huev1alpha1.Gradient{
			Points: []huev1alpha1.GradientPoint{{XY: []huev1alpha1.Chromaticity{0.3, 0.4}}, {XY: []huev1alpha1.Chromaticity{0.5, 0.4}}},
			Mode:   "random_pixelated"}},
			`{"On":true,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":null,` +
				`"Gradient":{"points":[[0.3,0.4],[0.5,0.4]],"mode":"random_pixelated"},"Speed":null}`},
		{"a powerup is passed in the model's units", huev1alpha1.HueLightSpec{Name: "x", On: ptr.To(false), Powerup: &huev1alpha1.Powerup{
			Preset: "custom", On: &huev1alpha1.PowerupOn{Mode: "on", On: ptr.To(true)},
			Dimming: &huev1alpha1.PowerupDimming{Mode: "dimming", Brightness: ptr.To[int32](200)},
			Color:   &huev1alpha1.PowerupColor{Mode: "color", XY: []huev1alpha1.Chromaticity{0.3, 0.4}}}},
			`{"On":false,"Bri":null,"XY":null,"CT":null,"Hue":null,"Sat":null,"Transition":null,"Effect":null,"Powerup":` +
				`{"preset":"custom","on":{"mode":"on","on":true},"dimming":{"mode":"dimming","bri":200},"color":{"mode":"color","xy":[0.3,0.4]}},"Gradient":null,"Speed":null}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := json.Marshal(desiredFrom(tc.spec))
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCapabilitiesStatus: an LCT015 (gamut C, 153-500 mireds) as the
// HueLight's status shows it.
func TestCapabilitiesStatus(t *testing.T) {
	extendedC := model.Light{ID: "1", Type: "Extended color light", ModelID: "LCT015", Capabilities: model.Capabilities{
		Dimmable: true, Color: true, HueSat: true, ColorTemperature: &model.MiredRange{Min: 153, Max: 500},
		Gamut: &model.Gamut{Type: "C", Red: [2]float64{0.6915, 0.3083}, Green: [2]float64{0.17, 0.7}, Blue: [2]float64{0.1532, 0.0475}}}}
	status := capabilitiesStatus(extendedC)
	if strings.Join(status.ColorModes, ",") != "xy,hs,ct" || status.ModelID != "LCT015" || status.Gamut.Type != "C" {
		t.Fatalf("status %+v", status)
	}
}

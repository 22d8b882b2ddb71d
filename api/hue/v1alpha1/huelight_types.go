package v1alpha1

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// DeletionPolicy says what happens to the bulb when its HueLight is deleted.
// +kubebuilder:validation:Enum=TurnOff;Keep
type DeletionPolicy string

const (
	// DeletionTurnOff switches the light off before the HueLight goes.
	DeletionTurnOff DeletionPolicy = "TurnOff"
	// DeletionKeep leaves the light as it is.
	DeletionKeep DeletionPolicy = "Keep"
)

// Chromaticity is one CIE 1931 coordinate, between 0 and 1.
//
// It is a float because that is what the bridge speaks; the MarshalJSON
// method lets controller-gen take the schema from the markers below instead
// of refusing a float field, and prints the shortest exact form (0.3, not
// 0.30000001).
// +kubebuilder:validation:Type=number
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=1
type Chromaticity float64

// MarshalJSON writes the coordinate as a plain JSON number.
func (c Chromaticity) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(c), 'g', -1, 64), nil
}

// Speed is a speed between 0 (slowest) and 1 (fastest), a float as the
// bridge speaks it; MarshalJSON lets controller-gen take the schema from
// the markers, as for Chromaticity.
// +kubebuilder:validation:Type=number
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=1
type Speed float64

// MarshalJSON writes the speed as a plain JSON number.
func (s Speed) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(s), 'g', -1, 64), nil
}

// BridgeReference names a HueBridge.
type BridgeReference struct {
	// Name of the HueBridge.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// Color is exactly one of xy, colorTemperature, or hue with saturation.
// The bridge gives xy priority over ct over hue/sat when several are sent, so
// allowing several would make the spec lie about what the bulb shows.
// +kubebuilder:validation:XValidation:rule="[has(self.xy), has(self.colorTemperature), has(self.hue) || has(self.saturation)].filter(b, b).size() == 1",message="color must set exactly one of: xy, colorTemperature, or hue together with saturation"
// +kubebuilder:validation:XValidation:rule="has(self.hue) == has(self.saturation)",message="hue and saturation go together: set both or neither"
type Color struct {
	// XY is the CIE 1931 chromaticity [x, y], each between 0 and 1.
	// +optional
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	XY []Chromaticity `json:"xy,omitempty"`

	// ColorTemperature in mireds: 153 (6500 K, cold) to 500 (2000 K, warm).
	// +optional
	// +kubebuilder:validation:Minimum=153
	// +kubebuilder:validation:Maximum=500
	ColorTemperature *int32 `json:"colorTemperature,omitempty"`

	// Hue on the bridge's wheel: 0 and 65535 are red, 21845 green, 43690 blue.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	Hue *int32 `json:"hue,omitempty"`

	// Saturation: 0 is white, 254 the most coloured.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=254
	Saturation *int32 `json:"saturation,omitempty"`
}

// HueLightSpec is the state one bulb should have.
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.id)",message="set exactly one of name (the light's name on the bridge) or id (its number on the bridge)"
// +kubebuilder:validation:XValidation:rule="!(has(self.gradient) && has(self.color))",message="gradient sets the light's colours: leave color out when gradient is set"
// +kubebuilder:validation:XValidation:rule="!has(self.__true__)",message="a bare on: key is read by YAML as true: (YAML 1.1); write \"on\": true or \"on\": false, with quotes"
type HueLightSpec struct {
	// BridgeRef names the HueBridge. It may be left out when exactly one
	// HueBridge exists.
	// +optional
	BridgeRef *BridgeReference `json:"bridgeRef,omitempty"`

	// Name of the light on the bridge, as shown in the Hue app (exact match).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Name string `json:"name,omitempty"`

	// ID is the light's number on the bridge, for lights without a stable name.
	// +optional
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]{0,4}$`
	ID string `json:"id,omitempty"`

	// On switches the light; default true.
	// +optional
	// +kubebuilder:default=true
	On *bool `json:"on,omitempty"`

	// BareOn refuses a bare `on:` key, which YAML 1.1 reads as `true:`.
	BareOn `json:",inline"`

	// Brightness from 1 (dimmest, still on) to 254 (brightest).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness *int32 `json:"brightness,omitempty"`

	// Color of the light; leave out to keep whatever colour it has.
	// +optional
	Color *Color `json:"color,omitempty"`

	// TransitionTime is how long the bulb takes to reach a new state, a
	// multiple of 100ms up to 1h49m. The bridge's own default is 400ms.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('6553500ms')",message="transitionTime must be between 0s and 1h49m13.5s"
	// +kubebuilder:validation:XValidation:rule="duration(self).getMilliseconds() % 100 == 0",message="transitionTime must be a multiple of 100ms (the bridge counts in tenths of a second), e.g. 400ms or 1.5s"
	TransitionTime *metav1.Duration `json:"transitionTime,omitempty"`

	// Effect is the light effect the bulb plays, CLIP v2 only: candle,
	// fire, prism, sparkle, opal, glisten, underwater, cosmos, sunbeam,
	// enchant (the names Hue documents), or no_effect to stop one. A bulb
	// plays only the effects it lists (status.capabilities.effects); any
	// other, a bulb without effects, or a v1 bridge is named in the Ready
	// condition and nothing is sent for it. Left out, the bulb keeps
	// whatever effect it plays. Names Hue adds later are let in: the bulb's
	// own list decides.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	Effect *string `json:"effect,omitempty"`

	// Powerup is what the bulb does when its power returns (after a power
	// cut, or switched at the wall), CLIP v2 only. It is a setting of the
	// bulb, kept whether spec.on is true or false. A bulb without the
	// setting (status.capabilities.powerup false), or a v1 bridge, is named
	// in the Ready condition and nothing is sent for it. Left out, the bulb
	// keeps its own.
	// +optional
	Powerup *Powerup `json:"powerup,omitempty"`

	// Gradient is the colours along a gradient light (a gradient
	// lightstrip), CLIP v2 only: 2 to 5 points, of which the bulb shows as
	// many as it can (status.capabilities.gradient.pointsCapable; the rest
	// are named in the Ready condition and left out), and how they are
	// laid out (mode, one of the bulb's modes). A bulb without a gradient,
	// or a v1 bridge, is named in the Ready condition and nothing is sent
	// for it. Left out, the bulb keeps its own.
	// +optional
	Gradient *Gradient `json:"gradient,omitempty"`

	// Dynamics is how fast what the bulb plays goes, CLIP v2 only. A bulb
	// without dynamics (status.capabilities.dynamics false), or a v1
	// bridge, is named in the Ready condition and nothing is sent for it.
	// Left out, the bulb keeps its own.
	// +optional
	Dynamics *Dynamics `json:"dynamics,omitempty"`

	// OnDelete says what happens to the bulb when this HueLight is deleted:
	// TurnOff (default) switches it off, Keep leaves it as it is.
	// +optional
	// +kubebuilder:default=TurnOff
	OnDelete DeletionPolicy `json:"onDelete,omitempty"`
}

// ObservedLightState is what the bridge last reported for the light.
type ObservedLightState struct {
	// On is whether the light is switched on.
	On bool `json:"on"`
	// Brightness from 1 to 254.
	// +optional
	Brightness int32 `json:"brightness,omitempty"`
	// ColorMode is the colour setting the bulb last used: xy, ct or hs.
	// +optional
	ColorMode string `json:"colorMode,omitempty"`
	// Effect is the effect the bulb plays (no_effect when none), as a
	// CLIP v2 bridge reports it; empty for a bulb without effects and on
	// the v1 API.
	// +optional
	Effect string `json:"effect,omitempty"`
	// Powerup is the bulb's powerup preset (safety, powerfail,
	// last_on_state or custom), as a CLIP v2 bridge reports it; empty for
	// a bulb without the setting and on the v1 API.
	// +optional
	Powerup string `json:"powerup,omitempty"`
	// Gradient is the gradient the bulb shows, as a CLIP v2 bridge
	// reports it; absent for a bulb without one and on the v1 API.
	// +optional
	Gradient *ObservedGradient `json:"gradient,omitempty"`
	// Speed is the speed of what the bulb plays, as a CLIP v2 bridge
	// reports it while it is valid (an effect or a dynamic palette plays);
	// absent otherwise and on the v1 API.
	// +optional
	Speed *Speed `json:"speed,omitempty"`
}

// Powerup is a bulb's powerup setting, in Hue's terms: a preset, or custom
// with what on, brightness and colour become (CLIP v2 API reference,
// "light", powerup).
// +kubebuilder:validation:XValidation:rule="self.preset == 'custom' || !(has(self.on) || has(self.dimming) || has(self.color))",message="powerup.on, powerup.dimming and powerup.color go only with preset custom: Hue's other presets fix them"
// +kubebuilder:validation:XValidation:rule="self.preset != 'custom' || has(self.on) || has(self.dimming) || has(self.color)",message="preset custom needs at least one of powerup.on, powerup.dimming or powerup.color"
type Powerup struct {
	// Preset is what the bulb does: safety (on, full brightness, warm
	// white: Hue's default), powerfail (as it was before the power cut),
	// last_on_state (as it was when last on), or custom (on, dimming and
	// color below).
	// +kubebuilder:validation:Enum=safety;powerfail;last_on_state;custom
	Preset string `json:"preset"`
	// On is whether the bulb comes on, with preset custom.
	// +optional
	On *PowerupOn `json:"on,omitempty"`
	// Dimming is the brightness it comes on with, with preset custom.
	// +optional
	Dimming *PowerupDimming `json:"dimming,omitempty"`
	// Color is the colour it comes on with, with preset custom.
	// +optional
	Color *PowerupColor `json:"color,omitempty"`
}

// PowerupOn is whether a bulb comes on when power returns: mode on (as on
// says), toggle (on and off in turn at each power toggle) or previous (as
// before the power went).
// +kubebuilder:validation:XValidation:rule="has(self.on) == (self.mode == 'on')",message="powerup.on.on is set with mode on, and only then"
// +kubebuilder:validation:XValidation:rule="!has(self.__true__)",message="a bare on: key is read by YAML as true: (YAML 1.1); write \"on\": true or \"on\": false, with quotes"
type PowerupOn struct {
	// Mode is on, toggle or previous.
	// +kubebuilder:validation:Enum=on;toggle;previous
	Mode string `json:"mode"`
	// On is whether the bulb comes on, with mode on.
	// +optional
	On *bool `json:"on,omitempty"`

	// BareOn refuses a bare `on:` key, which YAML 1.1 reads as `true:`.
	BareOn `json:",inline"`
}

// PowerupDimming is the brightness a bulb comes on with: mode dimming (at
// brightness) or previous (as before the power went).
// +kubebuilder:validation:XValidation:rule="has(self.brightness) == (self.mode == 'dimming')",message="powerup.dimming.brightness is set with mode dimming, and only then"
type PowerupDimming struct {
	// Mode is dimming or previous.
	// +kubebuilder:validation:Enum=dimming;previous
	Mode string `json:"mode"`
	// Brightness from 1 to 254, as spec.brightness, with mode dimming.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness *int32 `json:"brightness,omitempty"`
}

// PowerupColor is the colour a bulb comes on with: mode color_temperature
// (colorTemperature), color (xy) or previous (as before the power went).
// +kubebuilder:validation:XValidation:rule="has(self.colorTemperature) == (self.mode == 'color_temperature')",message="powerup.color.colorTemperature is set with mode color_temperature, and only then"
// +kubebuilder:validation:XValidation:rule="has(self.xy) == (self.mode == 'color')",message="powerup.color.xy is set with mode color, and only then"
type PowerupColor struct {
	// Mode is color_temperature, color or previous.
	// +kubebuilder:validation:Enum=color_temperature;color;previous
	Mode string `json:"mode"`
	// ColorTemperature in mireds, as spec.color.colorTemperature, with
	// mode color_temperature.
	// +optional
	// +kubebuilder:validation:Minimum=153
	// +kubebuilder:validation:Maximum=500
	ColorTemperature *int32 `json:"colorTemperature,omitempty"`
	// XY is the CIE 1931 chromaticity [x, y], with mode color.
	// +optional
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	XY []Chromaticity `json:"xy,omitempty"`
}

// Dynamics is the speed of what a bulb plays (CLIP v2 API reference,
// "light", dynamics).
type Dynamics struct {
	// Speed of the effect or dynamic palette the bulb plays, from 0
	// (slowest) to 1 (fastest). The bridge counts a speed only while
	// something plays ("in case of status none, the speed is not valid"):
	// a bulb playing nothing is sent the speed once, and the Ready
	// condition says it is taken as shown; while it plays an effect the
	// speed is compared and put back.
	// +required
	Speed *Speed `json:"speed"`
}

// Gradient is the colours along a light, in Hue's terms (CLIP v2 API
// reference, "light", gradient).
type Gradient struct {
	// Points are the colours from one end to the other: at least 2, the
	// fewest a bridge takes, and at most 5, the most Hue's API
	// reference lets a light have.
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=5
	// +listType=atomic
	Points []GradientPoint `json:"points"`
	// Mode is how the bulb lays the points out, one of its modes
	// (status.capabilities.gradient.modes): interpolated_palette (the
	// bridge's default), interpolated_palette_mirrored, random_pixelated,
	// segmented_palette. Names Hue adds later are let in: the bulb's own
	// list decides.
	// +optional
	// +kubebuilder:validation:MaxLength=48
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	Mode string `json:"mode,omitempty"`
}

// GradientPoint is one colour of a gradient.
type GradientPoint struct {
	// XY is the CIE 1931 chromaticity [x, y], each between 0 and 1.
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	XY []Chromaticity `json:"xy"`
}

// ObservedGradient is the gradient a bulb shows.
type ObservedGradient struct {
	// Points are its colours, as the bridge reports them.
	// +optional
	// +listType=atomic
	Points []GradientPoint `json:"points,omitempty"`
	// Mode is how it lays them out.
	// +optional
	Mode string `json:"mode,omitempty"`
}

// GradientCapabilities is what a gradient light reports of the feature.
type GradientCapabilities struct {
	// PointsCapable is the number of gradient points the bulb shows.
	PointsCapable int32 `json:"pointsCapable"`
	// Modes are the ways it lays points out, the values spec.gradient.mode
	// may take for it; empty when it reports none (then no mode is sent).
	// +optional
	// +listType=atomic
	Modes []string `json:"modes,omitempty"`
}

// Colour modes a bulb may take.
const (
	ColorModeXY               = "xy"
	ColorModeHueSaturation    = "hs"
	ColorModeColorTemperature = "ct"
)

// LightCapabilities is what the bulb can show, as its bridge describes it.
// Tether projects the spec onto it before comparing and sending: a colour
// temperature beyond the range is clamped, a colour outside the gamut moves
// to the nearest colour the bulb shows, and what the bulb lacks is not sent
// (the Ready condition says so).
type LightCapabilities struct {
	// Type is the bridge's light type, e.g. "Extended color light".
	// +optional
	Type string `json:"type,omitempty"`
	// ModelID is the product, e.g. LCT015.
	// +optional
	ModelID string `json:"modelID,omitempty"`
	// ColorModes are the colour settings the bulb takes: xy and hs (colour),
	// ct (colour temperature). Empty for a white or on/off bulb.
	// +optional
	// +listType=atomic
	ColorModes []string `json:"colorModes,omitempty"`
	// Dimmable is false for a bulb that is only on or off (a plug).
	Dimmable bool `json:"dimmable"`
	// ColorTemperature is the range the bulb shows, in mireds.
	// +optional
	ColorTemperature *MiredRange `json:"colorTemperature,omitempty"`
	// Gamut is the triangle of colours the bulb shows.
	// +optional
	Gamut *Gamut `json:"gamut,omitempty"`
	// Effects are the effects the bulb lists on a CLIP v2 bridge, the
	// values spec.effect may take for it; empty for a bulb without
	// effects and on the v1 API.
	// +optional
	// +listType=atomic
	Effects []string `json:"effects,omitempty"`
	// Powerup is true for a bulb that takes spec.powerup: it has the
	// setting on a CLIP v2 bridge.
	// +optional
	Powerup bool `json:"powerup,omitempty"`
	// Gradient is set for a gradient light on a CLIP v2 bridge: the
	// points it shows and the modes it lists.
	// +optional
	Gradient *GradientCapabilities `json:"gradient,omitempty"`
	// Dynamics is true for a bulb that takes spec.dynamics.speed: it has
	// dynamics on a CLIP v2 bridge.
	// +optional
	Dynamics bool `json:"dynamics,omitempty"`
}

// MiredRange is a colour-temperature range in mireds, inclusive.
type MiredRange struct {
	// Min is the coolest colour temperature the bulb shows, in mired.
	Min int32 `json:"min"`
	// Max is the warmest colour temperature the bulb shows, in mired.
	Max int32 `json:"max"`
}

// Gamut is a triangle in CIE 1931 xy.
type Gamut struct {
	// Type is the bridge's name for it: A, B, C or other.
	// +optional
	Type string `json:"type,omitempty"`
	// Red, Green and Blue are its corners, each [x, y].
	// +listType=atomic
	Red []Chromaticity `json:"red"`
	// Green is the gamut triangle's green corner, in CIE xy.
	// +listType=atomic
	Green []Chromaticity `json:"green"`
	// Blue is the gamut triangle's blue corner, in CIE xy.
	// +listType=atomic
	Blue []Chromaticity `json:"blue"`
}

// HueLightStatus is what Tether last saw of the bulb.
type HueLightStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// LightID is the light's number on the bridge, resolved from spec.name.
	// +optional
	LightID string `json:"lightID,omitempty"`
	// Bridge is the HueBridge the light was found on.
	// +optional
	Bridge string `json:"bridge,omitempty"`
	// Reachable is false when the bridge cannot reach the bulb (switched off
	// at the wall, out of range).
	// +optional
	Reachable *bool `json:"reachable,omitempty"`
	// Observed is the light's state as the bridge last reported it.
	// +optional
	Observed *ObservedLightState `json:"observed,omitempty"`
	// Capabilities are what the bulb can show.
	// +optional
	Capabilities *LightCapabilities `json:"capabilities,omitempty"`
}

// HueLight is the desired state of one Philips Hue light.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=hl,categories={tether,hue}
// +kubebuilder:printcolumn:name="LIGHT",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="MODEL",type=string,JSONPath=`.status.capabilities.modelID`
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.status.capabilities.type`,priority=1
// +kubebuilder:printcolumn:name="ON",type=boolean,JSONPath=`.status.observed.on`
// +kubebuilder:printcolumn:name="BRIGHTNESS",type=integer,JSONPath=`.status.observed.brightness`
// +kubebuilder:printcolumn:name="REACHABLE",type=boolean,JSONPath=`.status.reachable`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HueLight struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HueLightSpec `json:"spec"`
	// +kubebuilder:default:={"observedGeneration":-1}
	Status HueLightStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (l *HueLight) Managed() *commonv1alpha1.ManagedStatus { return &l.Status.ManagedStatus }

// HueLightList is a list of HueLights.
// +kubebuilder:object:root=true
type HueLightList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HueLight `json:"items"`
}

func init() {
	SchemeBuilder.Register(&HueLight{}, &HueLightList{})
}

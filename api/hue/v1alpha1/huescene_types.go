package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// GroupReference names a HueGroup in the same namespace.
type GroupReference struct {
	// Name of the HueGroup.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// SceneLight is the state one light of a scene should show.
// +kubebuilder:validation:XValidation:rule="!(has(self.gradient) && has(self.color))",message="gradient sets the light's colours: leave color out when gradient is set"
// +kubebuilder:validation:XValidation:rule="!has(self.__true__)",message="a bare on: key is read by YAML as true: (YAML 1.1); write \"on\": true or \"on\": false, with quotes"
type SceneLight struct {
	// Name of the light on the bridge; it must be one of the group's.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Name string `json:"name"`

	// On switches the light; default true.
	// +optional
	// +kubebuilder:default=true
	On *bool `json:"on,omitempty"`

	// BareOn refuses a bare `on:` key, which YAML 1.1 reads as `true:`.
	BareOn `json:",inline"`

	// Brightness from 1 (dimmest, still on) to 254.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness *int32 `json:"brightness,omitempty"`

	// Color of the light, as a HueLight's; the bulb shows what it can.
	// +optional
	Color *Color `json:"color,omitempty"`

	// Effect is the light effect the scene plays on the light, as a
	// HueLight's spec.effect, CLIP v2 only (a scene action's effects.effect,
	// CLIP v2 API reference, "scene"). A light that does not list it, or a
	// v1 bridge, is named in the Ready condition and the effect is left out
	// of the scene.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	Effect *string `json:"effect,omitempty"`

	// Gradient is the colours along a gradient light in the scene, as a
	// HueLight's spec.gradient, CLIP v2 only (a scene action's gradient).
	// A light without a gradient, or a v1 bridge, is named in the Ready
	// condition and the gradient is left out of the scene.
	// +optional
	Gradient *Gradient `json:"gradient,omitempty"`
}

// ScenePalette is the colours a CLIP v2 scene plays when it is shown
// dynamically (the scene's palette, CLIP v2 API reference, "scene"; openhue
// openhue-api src/scene, ScenePalette): up to 9 colours, one colour
// temperature, one brightness and 3 effects, the limits Hue's API reference
// gives.
// +kubebuilder:validation:XValidation:rule="has(self.colors) || has(self.colorTemperatures) || has(self.brightness) || has(self.effects)",message="a palette needs at least one of colors, colorTemperatures, brightness or effects"
type ScenePalette struct {
	// Colors are the palette's colours, each with its brightness: 1 to 9.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=9
	// +listType=atomic
	Colors []PaletteColor `json:"colors,omitempty"`

	// ColorTemperatures are the palette's white: at most 1 (the bridge
	// keeps one).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1
	// +listType=atomic
	ColorTemperatures []PaletteColorTemperature `json:"colorTemperatures,omitempty"`

	// Brightness of the palette (its dimming entry, at most one), 1 to 254.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness *int32 `json:"brightness,omitempty"`

	// Effects are the light effects the palette plays (candle, fire,
	// sparkle, ...; the palette's effects entries): 1 to 3, each once. A
	// palette is the scene's, not a light's: which of its lights play an
	// effect is the bridge's choice, by what each lists in effect_values.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=32
	// +kubebuilder:validation:items:Pattern=`^[a-z][a-z0-9_]*$`
	Effects []string `json:"effects,omitempty"`
}

// PaletteColor is one colour of a palette.
type PaletteColor struct {
	// XY is the CIE 1931 chromaticity [x, y], each between 0 and 1.
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	XY []Chromaticity `json:"xy"`

	// Brightness of the colour, 1 to 254.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness int32 `json:"brightness"`
}

// PaletteColorTemperature is a palette's white.
type PaletteColorTemperature struct {
	// ColorTemperature in mireds, 153 (cold) to 500 (warm), as the Hue API
	// reference bounds mirek.
	// +kubebuilder:validation:Minimum=153
	// +kubebuilder:validation:Maximum=500
	ColorTemperature int32 `json:"colorTemperature"`

	// Brightness of the white, 1 to 254.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness int32 `json:"brightness"`
}

// HueSceneSpec is a preset of per-light states for a HueGroup, stored on
// the bridge as a scene.
type HueSceneSpec struct {
	// GroupRef names the HueGroup (in this namespace) the scene is for.
	// +required
	GroupRef GroupReference `json:"groupRef"`

	// Name of the scene on the bridge, as the Hue app shows it; default the
	// HueScene's name (cut to 32 characters).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('tether-temporary-')",message="names starting with tether-temporary- are Tether's temporary scenes, removed when it starts"
	Name string `json:"name,omitempty"`

	// Lights are the states of the scene's lights, each a light of the
	// group; the group's other lights are left as they are when the scene
	// is shown. At most 150, the lights a Hue Bridge Pro holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=150
	// +listType=map
	// +listMapKey=name
	Lights []SceneLight `json:"lights"`

	// TransitionTime is how long the lights take to reach the scene, a
	// multiple of 100ms up to 1h49m; the showing HueGroup's transitionTime
	// replaces it when set.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('6553500ms')",message="transitionTime must be between 0s and 1h49m13.5s"
	// +kubebuilder:validation:XValidation:rule="duration(self).getMilliseconds() % 100 == 0",message="transitionTime must be a multiple of 100ms (the bridge counts in tenths of a second), e.g. 400ms or 1.5s"
	TransitionTime *metav1.Duration `json:"transitionTime,omitempty"`

	// Palette is the colours the scene plays when shown dynamically, CLIP
	// v2 only: on a v1 bridge it is named in the Ready condition and never
	// sent.
	// +optional
	Palette *ScenePalette `json:"palette,omitempty"`

	// Speed of the scene's dynamic palette, from 0 (slowest) to 1
	// (fastest), CLIP v2 only (the scene's speed).
	// +optional
	Speed *Speed `json:"speed,omitempty"`

	// AutoDynamic shows the scene dynamically (its palette played) when it
	// is recalled, CLIP v2 only (the scene's auto_dynamic).
	// +optional
	AutoDynamic *bool `json:"autoDynamic,omitempty"`
}

// HueSceneStatus is what Tether last stored on the bridge.
type HueSceneStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// SceneID is the scene's id on the bridge.
	// +optional
	SceneID string `json:"sceneID,omitempty"`
	// Bridge is the HueBridge the scene is on.
	// +optional
	Bridge string `json:"bridge,omitempty"`
	// GroupID is the bridge's id of the HueGroup's room or zone.
	// +optional
	GroupID string `json:"groupID,omitempty"`
	// LightCount is how many lights the scene sets.
	// +optional
	LightCount int32 `json:"lightCount,omitempty"`
}

// HueScene is a Philips Hue scene: a state for each light of a HueGroup,
// stored on the bridge. A HueGroup whose spec.scene names it shows it.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=hs,categories={tether,hue}
// +kubebuilder:printcolumn:name="GROUP",type=string,JSONPath=`.spec.groupRef.name`
// +kubebuilder:printcolumn:name="LIGHTS",type=integer,JSONPath=`.status.lightCount`
// +kubebuilder:printcolumn:name="SCENE ID",type=string,JSONPath=`.status.sceneID`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HueScene struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HueSceneSpec `json:"spec"`
	// +kubebuilder:default:={"observedGeneration":-1}
	Status HueSceneStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (s *HueScene) Managed() *commonv1alpha1.ManagedStatus { return &s.Status.ManagedStatus }

// HueSceneList is a list of HueScenes.
// +kubebuilder:object:root=true
type HueSceneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HueScene `json:"items"`
}

func init() {
	SchemeBuilder.Register(&HueScene{}, &HueSceneList{})
}

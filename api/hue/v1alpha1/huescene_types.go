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
	// is shown.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
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

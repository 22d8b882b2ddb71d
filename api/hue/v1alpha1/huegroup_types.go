package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// GroupType is the kind of group on the bridge.
// +kubebuilder:validation:Enum=Room;Zone
type GroupType string

const (
	// GroupRoom is a room: a light belongs to one room at most (the bridge
	// refuses a second one, error 306).
	GroupRoom GroupType = "Room"
	// GroupZone is a zone: a light may be in any number of zones.
	GroupZone GroupType = "Zone"
)

// HueGroupSpec is a room or zone on a bridge and the state all its lights
// should have.
// +kubebuilder:validation:XValidation:rule="!has(self.lights) || has(self.type)",message="spec.type (Room or Zone) is required with spec.lights: Tether creates the group when the bridge has none of that name"
// +kubebuilder:validation:XValidation:rule="!has(self.scene) || !(has(self.brightness) || has(self.color))",message="set either scene or brightness/color: a scene stores a state per light"
// +kubebuilder:validation:XValidation:rule="!has(self.scene) || !has(self.on) || self.on",message="a scene sets each light on or off itself: leave on out (or true) with scene"
// +kubebuilder:validation:XValidation:rule="!has(self.__true__)",message="a bare on: key is read by YAML as true: (YAML 1.1); write \"on\": true or \"on\": false, with quotes"
type HueGroupSpec struct {
	// BridgeRef names the HueBridge. It may be left out when exactly one
	// HueBridge exists.
	// +optional
	BridgeRef *BridgeReference `json:"bridgeRef,omitempty"`

	// Name of the room or zone on the bridge, as shown in the Hue app
	// (exact match).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('tether-temporary-')",message="names starting with tether-temporary- are Tether's temporary zones, removed when it starts"
	Name string `json:"name"`

	// Type is Room or Zone. With lights it is required; without, the
	// existing group of that name is adopted whatever its type, unless
	// type says which.
	// +optional
	Type GroupType `json:"type,omitempty"`

	// Lights are the names of the group's lights. When set, Tether keeps
	// the group's lights exactly these, creating the group if the bridge
	// has none of that name. Left out, an existing room or zone is adopted
	// with the lights it has. A light is in one room at most: the bridge
	// refuses a room that takes a light of another room (use a Zone). At
	// most 150, the lights a Hue Bridge Pro holds (the square bridge: 50).
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=150
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=32
	Lights []string `json:"lights,omitempty"`

	// On switches the group's lights; default true.
	// +optional
	// +kubebuilder:default=true
	On *bool `json:"on,omitempty"`

	// BareOn refuses a bare `on:` key, which YAML 1.1 reads as `true:`.
	BareOn `json:",inline"`

	// Brightness of every light, from 1 (dimmest, still on) to 254.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=254
	Brightness *int32 `json:"brightness,omitempty"`

	// Color of every light, as a HueLight's; each bulb shows what it can.
	// +optional
	Color *Color `json:"color,omitempty"`

	// Scene names a HueScene of this namespace to show instead of one state
	// for all.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Scene string `json:"scene,omitempty"`

	// TransitionTime is how long the lights take to reach a new state or
	// scene, a multiple of 100ms up to 1h49m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('6553500ms')",message="transitionTime must be between 0s and 1h49m13.5s"
	// +kubebuilder:validation:XValidation:rule="duration(self).getMilliseconds() % 100 == 0",message="transitionTime must be a multiple of 100ms (the bridge counts in tenths of a second), e.g. 400ms or 1.5s"
	TransitionTime *metav1.Duration `json:"transitionTime,omitempty"`

	// OnDelete says what happens when this HueGroup is deleted: TurnOff
	// (default) switches its lights off, Keep leaves them. A group Tether
	// created is then removed from the bridge; one it adopted is left.
	// +optional
	// +kubebuilder:default=TurnOff
	OnDelete DeletionPolicy `json:"onDelete,omitempty"`
}

// GroupMember is one light of the group as the bridge reports it.
type GroupMember struct {
	// Name of the light on the bridge.
	Name string `json:"name"`
	// LightID is its number on the bridge.
	LightID string `json:"lightID"`
	// Reachable is false when the bridge cannot reach the bulb; nothing is
	// sent for it then.
	Reachable bool `json:"reachable"`
	// On is whether it is switched on.
	On bool `json:"on"`
	// ModelID is the bulb's product, e.g. LCT015.
	// +optional
	ModelID string `json:"modelID,omitempty"`
}

// HueGroupStatus is what Tether last saw of the group.
type HueGroupStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// GroupID is the group's id on the bridge.
	// +optional
	GroupID string `json:"groupID,omitempty"`
	// Bridge is the HueBridge the group is on.
	// +optional
	Bridge string `json:"bridge,omitempty"`
	// Type is the group's type on the bridge (Room or Zone).
	// +optional
	Type string `json:"type,omitempty"`
	// Created is true when Tether created the group (it is removed from the
	// bridge with this HueGroup), false when it adopted it.
	// +optional
	Created bool `json:"created,omitempty"`
	// Members are the group's lights.
	// +optional
	// +listType=atomic
	Members []GroupMember `json:"members,omitempty"`
	// MemberCount is how many lights the group has.
	// +optional
	MemberCount int32 `json:"memberCount,omitempty"`
	// ActiveScene is the HueScene the group's lights show ("" when none).
	// +optional
	ActiveScene string `json:"activeScene,omitempty"`
}

// HueGroup is a room or zone of a Philips Hue bridge and the state of its
// lights: one group command sets them all.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=hg,categories={tether,hue}
// +kubebuilder:printcolumn:name="GROUP",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.status.type`
// +kubebuilder:printcolumn:name="LIGHTS",type=integer,JSONPath=`.status.memberCount`
// +kubebuilder:printcolumn:name="SCENE",type=string,JSONPath=`.status.activeScene`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HueGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HueGroupSpec `json:"spec"`
	// +kubebuilder:default:={"observedGeneration":-1}
	Status HueGroupStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (g *HueGroup) Managed() *commonv1alpha1.ManagedStatus { return &g.Status.ManagedStatus }

// HueGroupList is a list of HueGroups.
// +kubebuilder:object:root=true
type HueGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HueGroup `json:"items"`
}

func init() {
	SchemeBuilder.Register(&HueGroup{}, &HueGroupList{})
}

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// ConditionPaired is the HueBridge condition that says whether Tether holds a
// username the bridge accepts. Ready additionally needs the bridge reachable.
const ConditionPaired = "Paired"

// CredentialsKey is the key of the credentials Secret that holds the username
// the bridge issued at pairing.
const CredentialsKey = "username"

// SecretReference names a Secret in any namespace (HueBridge is cluster-scoped).
type SecretReference struct {
	// Namespace of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// Name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// HueBridgeSpec says where the bridge is and where its credentials live.
type HueBridgeSpec struct {
	// Address of the bridge: host, host:port or an http(s) URL.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="!self.contains(' ')",message="address must not contain spaces: use a host, host:port or http(s)://host[:port]"
	// +kubebuilder:validation:XValidation:rule="!self.contains('://') || self.startsWith('http://') || self.startsWith('https://')",message="address scheme must be http:// or https://"
	Address string `json:"address"`

	// CredentialsSecretRef is the Secret holding the bridge username under
	// the key "username". When it does not exist Tether pairs with the bridge
	// (press the link button) and creates it.
	// +required
	CredentialsSecretRef SecretReference `json:"credentialsSecretRef"`

	// AllowedNamespaces, when set, limits which namespaces may have HueLights
	// on this bridge; HueLights elsewhere are refused with a condition.
	// +optional
	// +listType=set
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`

	// PollInterval is how often Tether reads all lights of this bridge with a
	// single request to notice changes made outside Kubernetes. Default 5s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('1h')",message="pollInterval must be between 1s and 1h"
	PollInterval *metav1.Duration `json:"pollInterval,omitempty"`

	// CommandsPerSecond caps the light commands Tether sends to this bridge.
	// Hue bridges are documented for about 10 per second. Default 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=25
	CommandsPerSecond *int32 `json:"commandsPerSecond,omitempty"`

	// TemporaryScenes lets Tether store a short-lived scene on the bridge
	// (named tether-temporary-..., deleted right after) to set many lights
	// to different states with one group command, instead of one light
	// command each. False keeps to light and group commands. Default true.
	// +optional
	// +kubebuilder:default=true
	TemporaryScenes *bool `json:"temporaryScenes,omitempty"`
}

// HueBridgeStatus is what Tether last learned from the bridge.
type HueBridgeStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// BridgeID is the bridge's own identifier (from /config).
	// +optional
	BridgeID string `json:"bridgeID,omitempty"`
	// Name is the bridge's name as set in the Hue app.
	// +optional
	Name string `json:"name,omitempty"`
	// APIVersion is the bridge's API version.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// LightCount is how many lights the bridge knows.
	// +optional
	LightCount int32 `json:"lightCount,omitempty"`
	// LastContactTime is when the bridge last answered.
	// +optional
	LastContactTime *metav1.Time `json:"lastContactTime,omitempty"`
}

// HueBridge is a Philips Hue bridge (v1 API) that HueLights are switched through.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=hb
// +kubebuilder:printcolumn:name="ADDRESS",type=string,JSONPath=`.spec.address`
// +kubebuilder:printcolumn:name="BRIDGE ID",type=string,JSONPath=`.status.bridgeID`
// +kubebuilder:printcolumn:name="LIGHTS",type=integer,JSONPath=`.status.lightCount`
// +kubebuilder:printcolumn:name="PAIRED",type=string,JSONPath=`.status.conditions[?(@.type=="Paired")].status`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HueBridge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   HueBridgeSpec   `json:"spec"`
	Status HueBridgeStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (b *HueBridge) Managed() *commonv1alpha1.ManagedStatus { return &b.Status.ManagedStatus }

// HueBridgeList is a list of HueBridges.
// +kubebuilder:object:root=true
type HueBridgeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HueBridge `json:"items"`
}

func init() {
	SchemeBuilder.Register(&HueBridge{}, &HueBridgeList{})
}

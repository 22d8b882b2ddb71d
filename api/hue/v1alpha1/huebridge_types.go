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

// ClientKeyKey is the key of the credentials Secret that holds the client key
// the bridge issued with the username (the Entertainment API uses it).
const ClientKeyKey = "clientkey"

// BridgeIDKey is the key of the credentials Secret that holds the id of the
// bridge that issued the username: Tether sends the username only to a
// bridge that proves that id. Tether writes it when it pairs; a Secret made
// by hand must have it.
const BridgeIDKey = "bridgeid"

// ProofKey is the key of the credentials Secret that holds how the bridge
// was proven when Tether paired with it or first bound with the username:
// "hue-root-sha256 <fingerprint>" (a certificate chained to a Hue root),
// "ca-bundle-sha256 <fingerprint>" (a certificate verified against the
// HueBridge's caBundle), "unverified-tls <address>" (insecureSkipVerify) or
// "plain-v1 <address>". Tether sends the username only over that proof, or
// a certificate chained to a Hue root.
const ProofKey = "proof"

// HueAPI is a Hue bridge API.
// +kubebuilder:validation:Enum=Auto;V1;V2
type HueAPI string

const (
	// APIAuto uses CLIP v2 when the bridge serves it, else v1.
	APIAuto HueAPI = "Auto"
	// APIV1 is the v1 REST API: polled.
	APIV1 HueAPI = "V1"
	// APIV2 is CLIP v2 over HTTPS, with its event stream.
	APIV2 HueAPI = "V2"
)

// SecretKeyReference names one key of a Secret.
type SecretKeyReference struct {
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
	// Key in the Secret; default "ca.crt".
	// +optional
	// +kubebuilder:default="ca.crt"
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}

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
// +kubebuilder:validation:XValidation:rule="has(self.address) || has(self.bridgeID)",message="set address, or bridgeID to find the bridge by mDNS"
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipVerify) && self.insecureSkipVerify && (has(self.caBundle) || has(self.caBundleSecretRef)))",message="insecureSkipVerify checks no certificate: leave caBundle and caBundleSecretRef out"
type HueBridgeSpec struct {
	// Address of the bridge: a host (a name, an IPv4 address, or an IPv6
	// address in brackets) and an optional port, optionally after http://
	// (v1 as written) or https://. Nothing else: no path, query or user,
	// so that a HueBridge cannot make Tether call any URL it likes. Leave it
	// out to find the bridge by its bridgeID on the local network (mDNS).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="!self.contains(' ')",message="address must not contain spaces: use a host, host:port or http(s)://host[:port]"
	// +kubebuilder:validation:XValidation:rule="!self.contains('://') || self.startsWith('http://') || self.startsWith('https://')",message="address scheme must be http:// or https://"
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?://)?([A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?([.][A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*|[[][0-9A-Fa-f:.]+[]])(:[0-9]{1,5})?$')",message="address must be only a host (a name, an IPv4 address, or an IPv6 address in brackets) and an optional port, optionally after http:// or https://: no path, query or user"
	Address string `json:"address,omitempty"`

	// BridgeID is the bridge's id (16 hex characters, as the Hue app and
	// /api/config show it). When set, the bridge's HTTPS certificate must
	// name it, and a HueBridge without address finds the bridge by it.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9A-Fa-f]{16}$`
	BridgeID string `json:"bridgeID,omitempty"`

	// APIVersion is the API Tether speaks: V2 (CLIP v2 over HTTPS, changes
	// pushed by its event stream), V1 (polled), or Auto (default): V2 when
	// the bridge serves it.
	// +optional
	// +kubebuilder:default=Auto
	APIVersion HueAPI `json:"apiVersion,omitempty"`

	// CABundle is PEM certificates to trust for the bridge's HTTPS
	// certificate besides the Hue root CAs Tether embeds: for an emulator
	// or a bridge with a certificate of its own. The certificate must
	// still name the bridge id.
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	CABundle string `json:"caBundle,omitempty"`

	// CABundleSecretRef is CABundle from a Secret (in a namespace the
	// operator may read credentials from).
	// +optional
	CABundleSecretRef *SecretKeyReference `json:"caBundleSecretRef,omitempty"`

	// InsecureSkipVerify accepts any certificate: the connection is
	// encrypted but anyone on the network can pose as the bridge. Only as
	// an explicit opt-in; the status and a Warning event say so.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`

	// CredentialsSecretRef is the Secret holding the bridge username under
	// the key "username", and the id of the bridge that issued it under
	// "bridgeid". When it does not exist Tether pairs with the bridge (press
	// the link button) and creates it. A Secret another HueBridge uses may
	// be named only with spec.bridgeID set to the Secret's bridge id.
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
	// command each; on a bridge without the v1 API the scene lives in a
	// short-lived zone of its lights, which the Hue app lists while it
	// exists. False keeps to light and group commands. Default true.
	// +optional
	// +kubebuilder:default=true
	TemporaryScenes *bool `json:"temporaryScenes,omitempty"`
}

// HueBridgeStatus is what Tether last learned from the bridge.
type HueBridgeStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// BridgeID is the bridge's own identifier (from /config). Once learned
	// it is pinned: a later binding to a bridge with another id is refused
	// (set spec.bridgeID to move the HueBridge to another bridge).
	// +optional
	BridgeID string `json:"bridgeID,omitempty"`
	// VerifiedV2BridgeID is the bridge id last proven by a verified
	// certificate over CLIP v2. From then on apiVersion Auto speaks only
	// verified CLIP v2 to this bridge: it never falls back to plain v1,
	// where the username travels in clear (set spec.apiVersion V1 to allow
	// it).
	// +optional
	VerifiedV2BridgeID string `json:"verifiedV2BridgeID,omitempty"`
	// Name is the bridge's name as set in the Hue app.
	// +optional
	Name string `json:"name,omitempty"`
	// APIVersion is the bridge's API version (v1's apiversion); on CLIP v2
	// the bridge's software version, whose first two numbers are it.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// LightCount is how many lights the bridge knows.
	// +optional
	LightCount int32 `json:"lightCount,omitempty"`
	// LastContactTime is when the bridge last answered.
	// +optional
	LastContactTime *metav1.Time `json:"lastContactTime,omitempty"`
	// API is the API Tether speaks with the bridge: V1 or V2.
	// +optional
	API HueAPI `json:"api,omitempty"`
	// Address is the address in use: spec.address, or the one found by
	// mDNS.
	// +optional
	Address string `json:"address,omitempty"`
	// EventStream is the health of the CLIP v2 event stream (V2 only).
	// +optional
	EventStream *EventStreamStatus `json:"eventStream,omitempty"`
	// Certificate is what Tether checked of the bridge's HTTPS certificate.
	// +optional
	Certificate *CertificateStatus `json:"certificate,omitempty"`
}

// EventStreamStatus is the health of a bridge's event stream.
type EventStreamStatus struct {
	// State is Connected (changes arrive as events), Connecting, or
	// Polling (the bridge dropped the stream repeatedly: Tether polls
	// until a stream stays up).
	State string `json:"state"`
	// ConnectedSince is when the current stream connected.
	// +optional
	ConnectedSince *metav1.Time `json:"connectedSince,omitempty"`
	// LastEventTime is when the last event arrived.
	// +optional
	LastEventTime *metav1.Time `json:"lastEventTime,omitempty"`
	// Reconnects counts the streams that ended since the bridge was bound.
	// +optional
	Reconnects int32 `json:"reconnects,omitempty"`
	// Message says why the stream is not connected.
	// +optional
	Message string `json:"message,omitempty"`
}

// CertificateStatus is what Tether checked of the bridge's certificate.
type CertificateStatus struct {
	// Check is Verified (chain to a Hue root or caBundle, and the name is
	// the bridge id), Skipped (insecureSkipVerify) or None (plain HTTP, v1).
	Check string `json:"check"`
	// Subject is the certificate's common name (the bridge id).
	// +optional
	Subject string `json:"subject,omitempty"`
	// Issuer is its issuer's common name.
	// +optional
	Issuer string `json:"issuer,omitempty"`
	// NotAfter is when it expires.
	// +optional
	NotAfter *metav1.Time `json:"notAfter,omitempty"`
}

// HueBridge is a Philips Hue bridge (v1 API or CLIP v2) that HueLights are switched through.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=hb,categories={tether,hue}
// +kubebuilder:printcolumn:name="ADDRESS",type=string,JSONPath=`.spec.address`
// +kubebuilder:printcolumn:name="BRIDGE ID",type=string,JSONPath=`.status.bridgeID`
// +kubebuilder:printcolumn:name="API",type=string,JSONPath=`.status.api`
// +kubebuilder:printcolumn:name="EVENTS",type=string,JSONPath=`.status.eventStream.state`,priority=1
// +kubebuilder:printcolumn:name="CERTIFICATE",type=string,JSONPath=`.status.certificate.check`,priority=1
// +kubebuilder:printcolumn:name="LIGHTS",type=integer,JSONPath=`.status.lightCount`
// +kubebuilder:printcolumn:name="PAIRED",type=string,JSONPath=`.status.conditions[?(@.type=="Paired")].status`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HueBridge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HueBridgeSpec `json:"spec"`
	// +kubebuilder:default:={"observedGeneration":-1}
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

// Package v1alpha1 holds the Philips Hue kinds: HueBridge (a bridge on the
// network and its pairing) and HueLight (one bulb's desired state).
// +kubebuilder:object:generate=true
// +groupName=hue.tether.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of the Hue kinds.
	GroupVersion = schema.GroupVersion{Group: "hue.tether.dev", Version: "v1alpha1"}
	// SchemeBuilder registers the Hue kinds with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the Hue kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Package v1alpha1 holds Tether's AWS kinds (group aws.tether.dev).
// +kubebuilder:object:generate=true
// +groupName=aws.tether.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "aws.tether.dev", Version: "v1alpha1"}
	// SchemeBuilder registers the kinds of this package.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

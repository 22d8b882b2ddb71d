// Package api gathers Tether's API groups.
package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// NewScheme knows Kubernetes' built-in kinds and every Tether kind: what the
// demo and the tests' clients need.
func NewScheme() (*runtime.Scheme, error) {
	return schemeOf(clientgoscheme.AddToScheme, awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
}

// NewManagerScheme knows what the manager reads and writes through its
// client: every Tether kind, and of Kubernetes' own only core/v1
// (Namespaces, Secrets, ConfigMaps). Its events, lease and the metrics
// endpoint's reviews go through client-go's typed clients, which have a
// scheme of their own. Every built-in group in the manager's scheme too
// (NewScheme) would hold conversion and defaulting functions for hundreds
// of kinds it never touches: about 2 MiB of its memory (bench figure 16).
func NewManagerScheme() (*runtime.Scheme, error) {
	return schemeOf(corev1.AddToScheme, awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
}

func schemeOf(adds ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range adds {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Package v1alpha1 is a small kind used only by the generic reconciler's
// integration tests, so that those tests do not depend on any real kind's
// validation. It is installed into the test API server, never shipped.
// +kubebuilder:object:generate=true
// +groupName=test.tether.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "test.tether.dev", Version: "v1alpha1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

// WidgetSpec is whatever the test provider mirrors outside the cluster.
type WidgetSpec struct {
	// +optional
	Size int32 `json:"size,omitempty"`
	// +optional
	Color string `json:"color,omitempty"`
}

// WidgetStatus is the generic managed status only.
type WidgetStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`
}

// Widget is a test-only managed kind.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
	// +kubebuilder:default:={"observedGeneration":-1}
	Status WidgetStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (w *Widget) Managed() *commonv1alpha1.ManagedStatus { return &w.Status.ManagedStatus }

// WidgetList is a list of Widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Widget{}, &WidgetList{})
}

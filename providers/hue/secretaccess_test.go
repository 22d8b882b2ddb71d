package hue

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

func TestCredentialsRefMustBeInAnAllowedNamespace(t *testing.T) {
	cases := []struct {
		name       string
		namespaces []string
		ref        string
		allowed    bool
	}{
		{"the manager's namespace", []string{"tether-system"}, "tether-system", true},
		{"one of several", []string{"tether-system", "home"}, "home", true},
		{"another namespace", []string{"tether-system"}, "kube-system", false},
		{"none allowed", nil, "tether-system", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"},
				Spec: huev1alpha1.HueBridgeSpec{CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: tc.ref, Name: "hue"}}}
			err := allowCredentialsRef(tc.namespaces, b)
			if tc.allowed {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			te, ok := providers.AsTerminal(err)
			if !ok || te.Reason != ReasonCredentialsNamespaceNotAllowed {
				t.Fatalf("want a terminal %s, got %v", ReasonCredentialsNamespaceNotAllowed, err)
			}
		})
	}
}

func TestTetherWritesOnlyIntoItsOwnSecret(t *testing.T) {
	b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"}}
	own := &corev1.Secret{}
	markOwn(own, b)
	cases := []struct {
		name     string
		labels   map[string]string
		writable bool
	}{
		{"created by Tether for this bridge", own.Labels, true},
		{"made by someone else", nil, false},
		{"made by Tether for another bridge", map[string]string{OwnerLabel: "upstairs"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "tether-system", Name: "hue", Labels: tc.labels}}
			err := allowWrite(s, b)
			if tc.writable != (err == nil) {
				t.Fatalf("writable=%v, got %v", tc.writable, err)
			}
			if ra, ok := providers.AsRetryAfter(err); err != nil && (!ok || ra.Reason != ReasonCredentialsSecretNotOwned) {
				t.Fatalf("want a retry-after %s, got %v", ReasonCredentialsSecretNotOwned, err)
			}
		})
	}
}

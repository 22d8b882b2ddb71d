package hue

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
)

// TestDialChoosesTheAPI binds HueBridges to one simulated bridge through
// the registry's real dialling: Auto at the HTTPS address is v2, at the
// HTTP address v1; V2 with the CA from a Secret (caBundleSecretRef) is
// verified; a CA Secret outside the credentials namespaces is refused
// unread; Auto does not fall back to plain v1 over an untrusted
// certificate; spec.bridgeID must be the bridge's.
func TestDialChoosesTheAPI(t *testing.T) {
	sim := startSim(t, huesim.Options{Lights: []string{"a"}})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	ca := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "ca"}, Data: map[string][]byte{"ca.crt": sim.CACertPEM()}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ca).Build()
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, CallTimeout: 2 * time.Second}, logr.Discard())
	t.Cleanup(reg.Stop)
	ref := func(ns string) *huev1alpha1.SecretKeyReference {
		return &huev1alpha1.SecretKeyReference{Namespace: ns, Name: "ca"}
	}
	cases := []struct {
		name   string
		spec   huev1alpha1.HueBridgeSpec
		api    string
		reason string // a refusal's reason, "" for success
	}{
		{"Auto at the HTTPS address", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), CABundle: string(sim.CACertPEM())}, APIV2, ""},
		{"Auto at the HTTP address", huev1alpha1.HueBridgeSpec{Address: sim.Addr()}, APIV1, ""},
		{"an http:// URL is v1 as written", huev1alpha1.HueBridgeSpec{Address: sim.URL()}, APIV1, ""},
		{"V2, CA from a Secret", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundleSecretRef: ref("s")}, APIV2, ""},
		{"V2, CA Secret elsewhere", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundleSecretRef: ref("other")}, "",
			ReasonCredentialsNamespaceNotAllowed},
		{"Auto never downgrades over a refused certificate", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr()}, "", ReasonCertificateUntrusted},
		{"another bridge's id", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), BridgeID: "001788FFFE000001"}, "", ReasonCertificateMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"}, Spec: tc.spec}
			cl, cfg, err := reg.dial(context.Background(), b, simUser)
			if err == nil {
				err = checkSpecBridgeID(b, cfg)
			}
			if tc.reason != "" {
				reason, _ := asRetry(classify("home", err))
				if te, ok := providers.AsTerminal(classify("home", err)); ok {
					reason = te.Reason
				}
				if reason != tc.reason {
					t.Fatalf("got %v (%q), want %s", err, reason, tc.reason)
				}
				return
			}
			if err != nil || !cfg.Authorized || apiOf(cl) != tc.api {
				t.Fatalf("api %s, config %+v, err %v; want %s", apiOf(cl), cfg, err, tc.api)
			}
		})
	}
}

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
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestDialChoosesTheAPI binds HueBridges to one simulated bridge through
// the registry's real dialling: Auto at the HTTPS address is v2, at the
// HTTP address v1; V2 with the CA from a Secret (caBundleSecretRef) is
// verified; a CA Secret outside the credentials namespaces is refused
// unread; Auto does not fall back to plain v1 over an untrusted
// certificate, nor at all for a bridge it verified over v2 before;
// spec.bridgeID, and the id the HueBridge was bound to before
// (status.bridgeID), must be the bridge's; the credentials must be the
// bridge's. No refusal sends a username.
func TestDialChoosesTheAPI(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}})
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
	const other = "001788FFFE000001"
	verified := huev1alpha1.HueBridgeStatus{BridgeID: sim.BridgeID(), VerifiedV2BridgeID: sim.BridgeID()}
	cases := []struct {
		name   string
		spec   huev1alpha1.HueBridgeSpec
		status huev1alpha1.HueBridgeStatus
		credID string // the credentials' bridge id; default the simulator's
		api    string
		reason string // a refusal's reason, "" for success
	}{
		{"Auto at the HTTPS address", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), CABundle: string(sim.CACertPEM())}, huev1alpha1.HueBridgeStatus{}, "", wire.APIV2, ""},
		{"Auto at the HTTP address", huev1alpha1.HueBridgeSpec{Address: sim.Addr()}, huev1alpha1.HueBridgeStatus{}, "", wire.APIV1, ""},
		{"an http:// URL is v1 as written", huev1alpha1.HueBridgeSpec{Address: sim.URL()}, huev1alpha1.HueBridgeStatus{}, "", wire.APIV1, ""},
		{"V2, CA from a Secret", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundleSecretRef: ref("s")}, huev1alpha1.HueBridgeStatus{}, "", wire.APIV2, ""},
		{"V2, CA Secret elsewhere", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundleSecretRef: ref("other")}, huev1alpha1.HueBridgeStatus{}, "", "",
			ReasonCredentialsNamespaceNotAllowed},
		{"Auto never downgrades over a refused certificate", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr()}, huev1alpha1.HueBridgeStatus{}, "", "", wire.ReasonCertificateUntrusted},
		{"another bridge's id", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), BridgeID: other}, huev1alpha1.HueBridgeStatus{}, other, "", wire.ReasonCertificateMismatch},
		{"the id it was bound to is pinned (v2)", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), CABundle: string(sim.CACertPEM())},
			huev1alpha1.HueBridgeStatus{BridgeID: other}, other, "", wire.ReasonCertificateMismatch},
		{"the id it was bound to is pinned (v1)", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), APIVersion: huev1alpha1.APIV1},
			huev1alpha1.HueBridgeStatus{BridgeID: other}, other, "", wire.ReasonCertificateMismatch},
		{"credentials of another bridge (v2)", huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), CABundle: string(sim.CACertPEM())}, huev1alpha1.HueBridgeStatus{}, other, "", wire.ReasonCertificateMismatch},
		{"credentials of another bridge (v1)", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), APIVersion: huev1alpha1.APIV1}, huev1alpha1.HueBridgeStatus{}, other, "", ReasonCredentialsForAnotherBridge},
		{"credentials of another bridge than spec.bridgeID", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), BridgeID: sim.BridgeID()}, huev1alpha1.HueBridgeStatus{}, other, "", ReasonCredentialsForAnotherBridge},
		{"verified over v2 before: Auto speaks no plain v1", huev1alpha1.HueBridgeSpec{Address: sim.Addr()}, verified, "", "", ReasonDowngradeRefused},
		{"verified over v2 before: not at an http:// URL either", huev1alpha1.HueBridgeSpec{Address: sim.URL()}, verified, "", "", ReasonDowngradeRefused},
		{"verified over v2 before: V1 as asked", huev1alpha1.HueBridgeSpec{Address: sim.Addr(), APIVersion: huev1alpha1.APIV1}, verified, "", wire.APIV1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"}, Spec: tc.spec, Status: tc.status}
			cred := credentials{username: huetest.User, bridgeID: tc.credID}
			if cred.bridgeID == "" {
				cred.bridgeID = sim.BridgeID()
			}
			sent := sim.CredentialedRequests()
			cl, cfg, _, err := reg.dialer.dial(context.Background(), b, cred, reg.checkIdentity)
			if err == nil {
				err = checkSpecBridgeID(b, cfg)
			}
			if tc.reason != "" {
				reason, _ := asRetry(Classify("home", err))
				if te, ok := providers.AsTerminal(Classify("home", err)); ok {
					reason = te.Reason
				}
				if reason != tc.reason {
					t.Fatalf("got %v (%q), want %s", err, reason, tc.reason)
				}
				if n := sim.CredentialedRequests() - sent; n != 0 {
					t.Fatalf("refused, but %d requests carried the username", n)
				}
				return
			}
			if err != nil || !cfg.Authorized || wire.APIOf(cl) != tc.api {
				t.Fatalf("api %s, config %+v, err %v; want %s", wire.APIOf(cl), cfg, err, tc.api)
			}
		})
	}
}

func asRetry(err error) (string, bool) {
	if ra, ok := providers.AsRetryAfter(err); ok {
		return ra.Reason, true
	}
	return "", false
}

package hue

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
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

// TestASecretHoldingAUsernameIsNeverRefused: the check before pairing, and
// the write after it, answer a Secret that holds a username (whoever made
// it) as credentials that arrived, to be bound with on the next pass, not as
// CredentialsSecretNotOwned; one without a username that Tether did not
// make is still refused, and one Tether made for the bridge is written.
func TestASecretHoldingAUsernameIsNeverRefused(t *testing.T) {
	b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"},
		Spec: huev1alpha1.HueBridgeSpec{CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "tether-system", Name: "hue"}}}
	own := &corev1.Secret{}
	markOwn(own, b)
	withUser := map[string][]byte{huev1alpha1.CredentialsKey: []byte("u")}
	cases := []struct {
		name        string
		labels      map[string]string
		data        map[string][]byte
		checkReason string // before pairing: "" to pair, else the reason
		writeReason string // storing the issued username: "" to write
	}{
		{"someone else's, with a username", nil, withUser, ReasonNotPaired, ReasonNotPaired},
		{"another bridge's, with a username", map[string]string{OwnerLabel: "upstairs"}, withUser, ReasonNotPaired, ReasonNotPaired},
		{"Tether's, with a username", own.Labels, withUser, ReasonNotPaired, ""},
		{"someone else's, empty", nil, nil, ReasonCredentialsSecretNotOwned, ReasonCredentialsSecretNotOwned},
		{"Tether's, empty", own.Labels, nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "tether-system", Name: "hue", Labels: tc.labels}, Data: tc.data}
			scheme := runtime.NewScheme()
			_ = clientgoscheme.AddToScheme(scheme)
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(s.DeepCopy()).Build()
			if got := reasonOf(checkWritable(context.Background(), c, b)); got != tc.checkReason {
				t.Errorf("before pairing: %q, want %q", got, tc.checkReason)
			}
			if got := reasonOf(allowWrite(s, b)); got != tc.writeReason {
				t.Errorf("storing: %q, want %q", got, tc.writeReason)
			}
		})
	}
}

// reasonOf is the reason of a pending or retry-after error, "" for none.
func reasonOf(err error) string {
	if p, ok := providers.AsPending(err); ok {
		return p.Reason
	}
	if ra, ok := providers.AsRetryAfter(err); ok {
		return ra.Reason
	}
	if err != nil {
		return "unexpected: " + err.Error()
	}
	return ""
}

// TestASecretInUseIsRefusedToAnother: a Secret Tether paired for one
// HueBridge, or one another HueBridge is bound with, is refused to a
// HueBridge that does not name its bridge id in spec.bridgeID, and, while
// the HueBridge it was paired for exists, to one that does until the Secret
// records how the bridge was proven. The HueBridge it was paired for is
// never refused, whoever is bound with it now (the owner label wins over
// the registry's memory). Who may record the proof: the owner, or for a
// Secret without a living owner the first HueBridge bound with it.
func TestASecretInUseIsRefusedToAnother(t *testing.T) {
	ref := huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}
	bridge := func(name, id string) *huev1alpha1.HueBridge {
		return &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", BridgeID: id, CredentialsSecretRef: ref}}
	}
	cases := []struct {
		name      string
		owner     string // the Secret's OwnerLabel
		recorded  bool   // the Secret records a proof
		bound     string // a HueBridge bound with the Secret
		b         *huev1alpha1.HueBridge
		reason    string
		mayRecord bool
	}{
		{"paired for another", "home", true, "", bridge("thief", ""), ReasonCredentialsSecretInUse, false},
		{"paired for another, naming its bridge", "home", true, "", bridge("alias", "FAKE"), "", false},
		{"paired for another, naming its bridge, nothing recorded yet", "home", false, "", bridge("alias", "FAKE"), ReasonCredentialsSecretInUse, false},
		{"paired for another, naming another bridge", "home", true, "", bridge("thief", "001788FFFE000001"), ReasonCredentialsSecretInUse, false},
		{"paired for it", "home", true, "", bridge("home", ""), "", false},
		{"paired for it, nothing recorded yet", "home", false, "", bridge("home", ""), "", true},
		{"paired for it, another bound with it", "home", true, "thief", bridge("home", ""), "", false},
		{"paired for a HueBridge that is gone", "gone", false, "", bridge("next", ""), "", true},
		{"paired for a HueBridge that is gone, naming its bridge", "gone", true, "", bridge("next", "FAKE"), "", false},
		{"made by hand, bound by another", "", true, "home", bridge("thief", ""), ReasonCredentialsSecretInUse, false},
		{"made by hand, bound by another, naming its bridge", "", true, "home", bridge("alias", "FAKE"), "", false},
		{"made by hand, used by none", "", false, "", bridge("first", ""), "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, reg := newTestRegistry(t, func(string) wire.Client { return fakebridge.NewFakeBridge("desk") })
			if tc.bound != "" {
				reg.bindings[tc.bound] = &binding{secret: ref}
			}
			cred := credentials{username: "u", bridgeID: "FAKE", owner: tc.owner, recorded: tc.recorded}
			mayRecord, err := checkSecretUser(context.Background(), reg.reader, tc.b, cred, reg.boundWith(ref, tc.b.Name))
			if got := reasonOf(err); got != tc.reason {
				t.Fatalf("%q (%v), want %q", got, err, tc.reason)
			}
			if mayRecord != tc.mayRecord {
				t.Errorf("may record: %v, want %v", mayRecord, tc.mayRecord)
			}
		})
	}
}

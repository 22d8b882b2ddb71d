package hue

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestBridgeHealthComesFromThePoller: the HueBridge reads /config on first
// contact (twice: without and with the username) and after the bridge
// comes back; otherwise its health is the poller's last GET /lights, at no
// cost to the bridge.
func TestBridgeHealthComesFromThePoller(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway", "kitchen")
	lights := newTestLights(t, f)
	e := &BridgeExternal{Client: lights.Reader.(client.Client), Registry: lights.Registry}
	var b huev1alpha1.HueBridge
	if err := lights.Reader.Get(context.Background(), types.NamespacedName{Name: "home"}, &b); err != nil {
		t.Fatal(err)
	}
	p, err := e.Registry.For(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		bridgeErr  error
		wantReason string // "" for Available
		wantConfig int    // GET /config so far
		wantGets   int    // GET /lights so far
	}{
		// The first contact reads the public /config (which bridge, no
		// username sent), then /config with the username.
		{"first contact reads /config", nil, "", 2, 1},
		{"steady: no /config, no GET /lights of its own", nil, "", 2, 1},
		{"bridge offline: unreachable from the poll", fakebridge.NetErr{}, ReasonBridgeUnreachable, 2, 2},
		{"back: /config read again", nil, "", 3, 3},
		{"steady again", nil, "", 3, 3},
	}
	for i, st := range steps {
		f.Fail(st.bridgeErr)
		if i == 2 || i == 3 {
			_ = p.Poll(context.Background()) // the poller's own tick
		}
		obs, err := observe(context.Background(), e, &b)
		reason := ""
		if ra, ok := providers.AsRetryAfter(err); ok {
			reason = ra.Reason
		} else if err != nil || !obs.Available {
			t.Fatalf("%s: %+v, %v", st.name, obs, err)
		}
		gets, _ := f.Calls()
		if reason != st.wantReason || f.ConfigReads() != st.wantConfig || gets != st.wantGets {
			t.Fatalf("%s: reason %q, %d /config, %d /lights; want %q, %d, %d", st.name, reason, f.ConfigReads(), gets, st.wantReason, st.wantConfig, st.wantGets)
		}
		if reason == "" && (b.Status.LightCount != 2 || b.Status.BridgeID != "FAKE" || b.Status.LastContactTime == nil) {
			t.Fatalf("%s: status %+v", st.name, b.Status)
		}
	}
}

// TestPairingBacksOff: asked again after as long as the HueBridge has been
// waiting for the link button, from 3 s up to 15 s.
func TestPairingBacksOff(t *testing.T) {
	now := time.Now()
	cases := []struct {
		waited time.Duration
		want   time.Duration
	}{
		{0, PairingInterval},
		{time.Second, PairingInterval},
		{6 * time.Second, 6 * time.Second},
		{12 * time.Second, 12 * time.Second},
		{time.Hour, PairingMaxInterval},
	}
	for _, tc := range cases {
		b := &huev1alpha1.HueBridge{}
		b.Status.Conditions = []metav1.Condition{{Type: huev1alpha1.ConditionPaired, Status: metav1.ConditionFalse,
			Reason: ReasonLinkButton, LastTransitionTime: metav1.NewTime(now.Add(-tc.waited))}}
		if got := pairingDelay(b, now); got != tc.want {
			t.Errorf("waited %s: asks again after %s, want %s", tc.waited, got, tc.want)
		}
	}
	if got := pairingDelay(&huev1alpha1.HueBridge{}, now); got != PairingInterval {
		t.Errorf("first try: %s", got)
	}
}

// TestCredentialsThatArriveWhilePairingAreUsed: a HueBridge created before
// its Secret (`kubectl apply -f` of a folder applies bridge.yaml before
// secret.yaml) meets the Secret, username and all, between the pass's first
// read (Connect: no credentials, so Observe asks for pairing) and the check
// before pairing. That check must take the username as arrived: no pairing,
// no CredentialsSecretNotOwned refusal (before the fix: a retry after a
// minute, the flake of TestHueDistinctStatesUseATemporaryScene), the user's
// Secret left as it was, and the next pass binds with it.
func TestCredentialsThatArriveWhilePairingAreUsed(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home", UID: "u1", Generation: 1},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(b.DeepCopy()).Build()
	f := fakebridge.NewFakeBridge("hallway")
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, PollInterval: time.Hour,
		NewClient: func(string, string, time.Duration) wire.Client { return f }}, logr.Discard())
	t.Cleanup(reg.Stop)
	e := &BridgeExternal{Client: c, Registry: reg}

	ext, err := e.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if obs, err := ext.Observe(ctx, b); err != nil || obs.Outcome != providers.OutcomeCreate {
		t.Fatalf("without a Secret: %+v, %v; want not paired", obs, err)
	}
	user := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"},
		Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte("made-by-hand"), huev1alpha1.BridgeIDKey: []byte("FAKE")}}
	if err := c.Create(ctx, user); err != nil {
		t.Fatal(err)
	}

	err = ext.Create(ctx, b)
	p, ok := providers.AsPending(err)
	if !ok || p.Reason != ReasonNotPaired {
		t.Fatalf("Create with the username arrived: %v; want a pending %s", err, ReasonNotPaired)
	}
	if f.Pairs() != 0 {
		t.Fatalf("paired %d times over the user's username", f.Pairs())
	}
	var s corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: "s", Name: "hue"}, &s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data[huev1alpha1.CredentialsKey]) != "made-by-hand" || s.Labels[OwnerLabel] != "" {
		t.Fatalf("the user's Secret was changed: %v, labels %v", s.Data, s.Labels)
	}
	obs, err := observe(ctx, e, b)
	if err != nil || obs.Outcome == providers.OutcomeCreate || !obs.Available {
		t.Fatalf("next pass: %+v, %v; want bound with the Secret's username", obs, err)
	}
}

// TestStatusMessagesAreBounded: what a bridge says reaches the HueBridge's
// status cut to providers.MaxMessageBytes, in the Paired condition, the
// event stream's message and the bridge's name, as conditions are.
func TestStatusMessagesAreBounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	b := &huev1alpha1.HueBridge{}
	setPaired(b, false, ReasonUnauthorized, huge)
	recordBinding(b, Binding{API: wire.APIV2, Stream: bridge.StreamStatus{State: bridge.StreamPolling, Message: huge}})
	if n := len(meta.FindStatusCondition(b.Status.Conditions, huev1alpha1.ConditionPaired).Message); n > providers.MaxMessageBytes {
		t.Errorf("the Paired condition's message is %d bytes", n)
	}
	if n := len(b.Status.EventStream.Message); n > providers.MaxMessageBytes {
		t.Errorf("the event stream's message is %d bytes", n)
	}
}

package hue

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/types"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// TestBridgeHealthComesFromThePoller: the HueBridge reads /config on first
// contact and after the bridge comes back; otherwise its health is the
// poller's last GET /lights, at no cost to the bridge.
func TestBridgeHealthComesFromThePoller(t *testing.T) {
	f := newFakeBridge("hallway", "kitchen")
	lights := newTestLights(t, f)
	e := &BridgeExternal{Registry: lights.Registry}
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
		{"first contact reads /config", nil, "", 1, 1},
		{"steady: no /config, no GET /lights of its own", nil, "", 1, 1},
		{"bridge offline: unreachable from the poll", &neterr{}, ReasonBridgeUnreachable, 1, 2},
		{"back: /config read again", nil, "", 2, 3},
		{"steady again", nil, "", 2, 3},
	}
	for i, st := range steps {
		f.mu.Lock()
		f.err = st.bridgeErr
		f.mu.Unlock()
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
		gets, _ := f.calls()
		if reason != st.wantReason || f.config != st.wantConfig || gets != st.wantGets {
			t.Fatalf("%s: reason %q, %d /config, %d /lights; want %q, %d, %d", st.name, reason, f.config, gets, st.wantReason, st.wantConfig, st.wantGets)
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

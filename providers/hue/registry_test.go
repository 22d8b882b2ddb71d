package hue

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// TestPollerOfAGoneBridgeStops: a HueBridge deleted while paused is
// released without Delete, which would have dropped its poller; the poller
// notices the HueBridge is gone and stops polling the bridge.
func TestPollerOfAGoneBridgeStops(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	bridge := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home", UID: "u1"},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"}, Data: map[string][]byte{"username": []byte("u")}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(bridge, secret).Build()
	f := newFakeBridge("desk")
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, PollInterval: 50 * time.Millisecond, NewClient: func(string, string, time.Duration) Client { return f }}, logr.Discard())
	t.Cleanup(reg.Stop)
	ctx := context.Background()
	if _, err := reg.For(ctx, bridge); err != nil {
		t.Fatal(err)
	}
	g := NewWithT(t)
	gets := func() int { n, _ := f.calls(); return n }
	g.Eventually(gets, 5*time.Second, 20*time.Millisecond).Should(BeNumerically(">=", 3), "the poller polls while its HueBridge exists")

	g.Expect(c.Delete(ctx, bridge)).To(Succeed())
	g.Eventually(func() bool { _, ok := reg.Running("home"); return ok }, 5*time.Second, 20*time.Millisecond).Should(BeFalse())
	stopped := gets()
	g.Consistently(gets, 500*time.Millisecond, 50*time.Millisecond).Should(Equal(stopped), "no GET after the poller stopped")
}

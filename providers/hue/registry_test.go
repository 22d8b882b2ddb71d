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
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestSessionOfAGoneBridgeStops: a HueBridge deleted while paused is
// released without Delete, which would have unbound it; its session
// notices no HueBridge names the bridge any more and stops reading it.
func TestSessionOfAGoneBridgeStops(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	bridge := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home", UID: "u1"},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"}, Data: map[string][]byte{"username": []byte("u"), "bridgeid": []byte("FAKE")}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(bridge, secret).Build()
	f := fakebridge.NewFakeBridge("desk")
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, PollInterval: 50 * time.Millisecond, NewClient: func(string, string, time.Duration) wire.Client { return f }}, logr.Discard())
	t.Cleanup(reg.Stop)
	ctx := context.Background()
	if _, err := reg.For(ctx, bridge); err != nil {
		t.Fatal(err)
	}
	g := NewWithT(t)
	gets := func() int { n, _ := f.Calls(); return n }
	g.Eventually(gets, 5*time.Second, 20*time.Millisecond).Should(BeNumerically(">=", 3), "the session reads while its HueBridge exists")

	g.Expect(c.Delete(ctx, bridge)).To(Succeed())
	g.Eventually(func() bool { _, ok := reg.Running("home"); return ok }, 5*time.Second, 20*time.Millisecond).Should(BeFalse())
	stopped := gets()
	g.Consistently(gets, 500*time.Millisecond, 50*time.Millisecond).Should(Equal(stopped), "no GET after the session stopped")
}

// TestTwoHueBridgesOnOneBridgeShareASession: two HueBridge objects naming
// one bridge at one address get one session, keyed by the bridge id
// /config reports: one read per interval, one command budget, one set of
// claims, so HueLights through either see each other's claims. Deleting
// one HueBridge leaves the session to the other. (The second names the
// bridge id: it uses the first one's Secret.)
func TestTwoHueBridgesOnOneBridgeShareASession(t *testing.T) {
	f := fakebridge.NewFakeBridge("desk")
	alias := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "alias", UID: "u2", Generation: 1, CreationTimestamp: metav1.Now()},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", BridgeID: "FAKE", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	early := hueLight("b-room", "desk", "desk", time.Unix(100, 0))
	late := hueLight("a-room", "desk", "desk", time.Unix(200, 0))
	early.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "home"}
	late.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "alias"}
	e := newTestLightsAt(t, map[string]*fakebridge.FakeBridge{"bridge": f}, alias, early.DeepCopy(), late.DeepCopy())
	ctx := context.Background()
	g := NewWithT(t)

	for _, l := range []*huev1alpha1.HueLight{early, late} {
		_, err := observe(ctx, e, l)
		g.Expect(err).NotTo(HaveOccurred())
	}
	home, _ := e.Registry.Running("home")
	other, _ := e.Registry.Running("alias")
	g.Expect(home).NotTo(BeNil())
	g.Expect(other).To(BeIdenticalTo(home), "one session for one bridge id")
	obs, err := observe(ctx, e, late)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(obs.Wait.Reason).To(Equal(providers.ReasonConflict), "the claim made through the other HueBridge counts")
	g.Expect(obs.Wait.Message).To(ContainSubstring("b-room/desk"))

	e.Registry.Drop("home")
	still, ok := e.Registry.Running("alias")
	g.Expect(ok).To(BeTrue())
	g.Expect(still).To(BeIdenticalTo(home), "the session stays while a HueBridge names the bridge")
	g.Expect(home.Lights(ctx)).To(HaveLen(1))
}

// TestSharingASessionNeedsTheSameProof: a HueBridge that reaches the same
// bridge id at another address over plain v1 proves only that something
// there says the id: it is refused (BridgeIdentityConflict), shares no
// session, and the session keeps the client it had.
func TestSharingASessionNeedsTheSameProof(t *testing.T) {
	f, impostor := fakebridge.NewFakeBridge("desk"), fakebridge.NewFakeBridge("desk")
	other := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "other", UID: "u2", Generation: 1, CreationTimestamp: metav1.Now()},
		Spec: huev1alpha1.HueBridgeSpec{Address: "elsewhere", BridgeID: "FAKE", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	e := newTestLightsAt(t, map[string]*fakebridge.FakeBridge{"bridge": f, "elsewhere": impostor}, other)
	ctx := context.Background()
	g := NewWithT(t)
	var home huev1alpha1.HueBridge
	g.Expect(e.Reader.Get(ctx, types.NamespacedName{Name: "home"}, &home)).To(Succeed())
	s, err := e.Registry.For(ctx, &home)
	g.Expect(err).NotTo(HaveOccurred())

	_, err = e.Registry.For(ctx, other)
	ra, ok := providers.AsRetryAfter(err)
	g.Expect(ok).To(BeTrue(), "%v", err)
	g.Expect(ra.Reason).To(Equal(ReasonBridgeIdentityConflict))
	g.Expect(err.Error()).To(ContainSubstring("plain v1 at elsewhere"))
	_, bound := e.Registry.Running("other")
	g.Expect(bound).To(BeFalse())
	g.Expect(sessionClient(e.Registry, s)).To(BeIdenticalTo(wire.Client(f)), "the session keeps its client")
}

// TestAStrongerProofTakesTheSessionOver: a HueBridge that proves the
// bridge by its verified certificate takes over the session a plain v1
// HueBridge bound first (which after a restart is chance), and the plain
// one is refused when it binds again: the order of binding does not decide
// who speaks for a verified bridge.
func TestAStrongerProofTakesTheSessionOver(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"a"}})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	ref := huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}
	plain := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "plain", UID: "u1", Generation: 1},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.Addr(), APIVersion: huev1alpha1.APIV1, BridgeID: sim.BridgeID(), CredentialsSecretRef: ref}}
	verified := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "verified", UID: "u2", Generation: 1, CreationTimestamp: metav1.Now()},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundle: string(sim.CACertPEM()),
			BridgeID: sim.BridgeID(), CredentialsSecretRef: ref}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"},
		Data: map[string][]byte{"username": []byte(huetest.User), "bridgeid": []byte(sim.BridgeID())}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(plain, verified, secret).Build()
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, PollInterval: time.Hour, CallTimeout: 2 * time.Second}, logr.Discard())
	t.Cleanup(reg.Stop)
	ctx := context.Background()
	g := NewWithT(t)

	first, err := reg.For(ctx, plain)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(wire.APIOf(sessionClient(reg, first))).To(Equal(wire.APIV1))
	s, err := reg.For(ctx, verified)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s).NotTo(BeIdenticalTo(first), "a new session for the verified HueBridge")
	g.Expect(wire.CertificateOf(sessionClient(reg, s)).Check).To(Equal(wire.CertificateVerified))
	_, stillBound := reg.Running("plain")
	g.Expect(stillBound).To(BeFalse())
	_, err = reg.For(ctx, plain)
	ra, ok := providers.AsRetryAfter(err)
	g.Expect(ok).To(BeTrue(), "%v", err)
	g.Expect(ra.Reason).To(Equal(ReasonBridgeIdentityConflict))
	g.Expect(sessionClient(reg, s)).To(BeIdenticalTo(clientOf(reg, "verified")))
}

// clientOf is the client of a HueBridge's binding.
func clientOf(reg *Registry, name string) wire.Client {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.bindings[name].client
}

// TestAnAliasDoesNotWidenAllowedNamespaces: a second HueBridge for the same
// bridge, without allowedNamespaces, does not let a namespace the first one
// leaves out drive the bridge.
func TestAnAliasDoesNotWidenAllowedNamespaces(t *testing.T) {
	f := fakebridge.NewFakeBridge("desk")
	alias := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "alias", UID: "u2", Generation: 1, CreationTimestamp: metav1.Now()},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", BridgeID: "FAKE", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	l := hueLight("garage", "desk", "desk", time.Unix(100, 0))
	l.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "alias"}
	e := newTestLightsAt(t, map[string]*fakebridge.FakeBridge{"bridge": f}, alias, l.DeepCopy())
	ctx := context.Background()
	g := NewWithT(t)
	var home huev1alpha1.HueBridge
	g.Expect(e.Reader.Get(ctx, types.NamespacedName{Name: "home"}, &home)).To(Succeed())
	home.Spec.AllowedNamespaces = []string{"entrance"}
	g.Expect(e.Reader.(client.Client).Update(ctx, &home)).To(Succeed())
	_, err := e.Registry.For(ctx, &home)
	g.Expect(err).NotTo(HaveOccurred())

	_, err = observe(ctx, e, l)
	ra, ok := providers.AsRetryAfter(err)
	g.Expect(ok).To(BeTrue(), "%v", err)
	g.Expect(ra.Reason).To(Equal(ReasonNamespaceNotAllowed))
	g.Expect(err.Error()).To(ContainSubstring("HueBridge home"))
	gets, puts := f.Calls()
	g.Expect(puts).To(BeEmpty(), "%d reads", gets)
}

// TestDisallowedNamespaceLetsGoOfTheBulb: a HueLight whose namespace the
// bridge stops accepting releases its claim, so a HueLight the bridge does
// accept takes the bulb instead of reading Conflict.
func TestDisallowedNamespaceLetsGoOfTheBulb(t *testing.T) {
	f := fakebridge.NewFakeBridge("desk")
	early := hueLight("garage", "desk", "desk", time.Unix(100, 0))
	late := hueLight("entrance", "desk", "desk", time.Unix(200, 0))
	e := newTestLights(t, f, early.DeepCopy(), late.DeepCopy())
	ctx := context.Background()
	g := NewWithT(t)
	for _, l := range []*huev1alpha1.HueLight{early, late} {
		_, err := observe(ctx, e, l)
		g.Expect(err).NotTo(HaveOccurred())
	}
	obs, _ := observe(ctx, e, late)
	g.Expect(obs.Wait.Reason).To(Equal(providers.ReasonConflict))

	var b huev1alpha1.HueBridge
	g.Expect(e.Reader.Get(ctx, types.NamespacedName{Name: "home"}, &b)).To(Succeed())
	b.Spec.AllowedNamespaces = []string{"entrance"}
	b.Generation++
	g.Expect(e.Reader.(client.Client).Update(ctx, &b)).To(Succeed())

	_, err := observe(ctx, e, early)
	ra, ok := providers.AsRetryAfter(err)
	g.Expect(ok).To(BeTrue())
	g.Expect(ra.Reason).To(Equal(ReasonNamespaceNotAllowed))
	obs, err = observe(ctx, e, late)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(obs.Outcome == providers.OutcomeWait).To(BeFalse(), "the allowed HueLight holds the bulb now: %+v", obs)
	g.Expect(obs.Diff).NotTo(BeNil())
}

// sessionClient is the client a session speaks through.
func sessionClient(reg *Registry, s *bridge.Session) wire.Client {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	for _, run := range reg.sessions {
		if run.session == s {
			return run.client
		}
	}
	return nil
}

package hue

import (
	"context"
	"strings"
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

// TestACABundleDoesNotTakeTheSessionOver: a HueBridge that proves the
// bridge by a certificate verified against a caBundle it supplies does not
// take over the session a plain v1 HueBridge holds: whoever writes a
// HueBridge chooses its caBundle, so it outranks nothing (only a
// certificate chained to a Hue root does: TestOnlyAHueRootOutranks). It is
// refused before it sends anything, and the plain one keeps the session.
func TestACABundleDoesNotTakeTheSessionOver(t *testing.T) {
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
	_, err = reg.For(ctx, verified)
	ra, ok := providers.AsRetryAfter(err)
	g.Expect(ok).To(BeTrue(), "%v", err)
	g.Expect(ra.Reason).To(Equal(ReasonBridgeIdentityConflict))
	s, stillBound := reg.Running("plain")
	g.Expect(stillBound).To(BeTrue())
	g.Expect(s).To(BeIdenticalTo(first))
	g.Expect(sessionClient(reg, first)).To(BeIdenticalTo(clientOf(reg, "plain")))
}

// certified is a client whose last handshake showed info.
type certified struct {
	wire.Client
	info wire.CertificateInfo
}

func (c certified) Certificate() wire.CertificateInfo { return c.info }

// identities are what clients of each proof prove, by name.
func identities() map[string]wire.Identity {
	cert := func(fp string, hueRoot bool) wire.Identity {
		return wire.IdentityOf(certified{info: wire.CertificateInfo{Check: wire.CertificateVerified, Fingerprint: fp, HueRoot: hueRoot}}, "10.0.0.9:443")
	}
	return map[string]wire.Identity{
		"plain v1 at A":       wire.IdentityOf(fakebridge.NewFakeBridge(), "http://10.0.0.2/"),
		"plain v1 at A again": wire.IdentityOf(fakebridge.NewFakeBridge(), "10.0.0.2"),
		"plain v1 at B":       wire.IdentityOf(fakebridge.NewFakeBridge(), "10.0.0.3"),
		"unverified TLS at A": wire.IdentityOf(certified{info: wire.CertificateInfo{Check: wire.CertificateSkipped, Fingerprint: "ee"}}, "10.0.0.2"),
		"caBundle cert 1":     cert("c1", false),
		"caBundle cert 2":     cert("c2", false),
		"Hue root cert 1":     cert("h1", true),
		"Hue root cert 2":     cert("h2", true),
	}
}

// TestOnlyAHueRootOutranks: who may share a session held over one proof
// (admit), and who may be sent a username whose Secret records one
// (Identity.Meets). Only a certificate chained to a Hue root outranks; a
// caBundle and insecureSkipVerify are the HueBridge writer's choices and
// outrank nothing; the same certificate, or the same address at the same
// proof, is the same proof.
func TestOnlyAHueRootOutranks(t *testing.T) {
	ids := identities()
	b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "newcomer"}}
	cases := []struct {
		newcomer, held string
		want           string // share, evict, or refuse
	}{
		{"plain v1 at A again", "plain v1 at A", "share"},
		{"plain v1 at B", "plain v1 at A", "refuse"},
		{"unverified TLS at A", "plain v1 at A", "refuse"},
		{"plain v1 at A", "unverified TLS at A", "refuse"},
		{"caBundle cert 1", "plain v1 at A", "refuse"},
		{"caBundle cert 1", "unverified TLS at A", "refuse"},
		{"caBundle cert 1", "caBundle cert 1", "share"},
		{"caBundle cert 2", "caBundle cert 1", "refuse"},
		{"plain v1 at A", "caBundle cert 1", "refuse"},
		{"Hue root cert 1", "plain v1 at A", "evict"},
		{"Hue root cert 1", "unverified TLS at A", "evict"},
		{"Hue root cert 1", "caBundle cert 1", "evict"},
		{"Hue root cert 2", "Hue root cert 1", "share"},
		{"caBundle cert 1", "Hue root cert 1", "refuse"},
		{"plain v1 at A", "Hue root cert 1", "refuse"},
	}
	for _, tc := range cases {
		t.Run(tc.newcomer+" vs "+tc.held, func(t *testing.T) {
			evict, err := admit(b, "FAKE", ids[tc.newcomer], "holder", ids[tc.held])
			got := "share"
			switch {
			case err != nil:
				got = "refuse"
				if r := reasonOf(err); r != ReasonBridgeIdentityConflict {
					t.Errorf("reason %q", r)
				}
			case evict:
				got = "evict"
			}
			if got != tc.want {
				t.Errorf("admit: %s, want %s", got, tc.want)
			}
			if meets := ids[tc.newcomer].Meets(ids[tc.held]); meets != (tc.want != "refuse") {
				t.Errorf("meets the recorded proof: %v, want %v", meets, tc.want != "refuse")
			}
			rec, err := wire.ParseIdentity(ids[tc.held].Record())
			if err != nil || rec != ids[tc.held] {
				t.Errorf("the record %q reads back as %v (%v)", ids[tc.held].Record(), rec, err)
			}
		})
	}
}

// TestTheRecordedProofDecidesWhoGetsTheUsername: with a proof recorded in
// its Secret, a username goes only over that proof or a certificate
// chained to a Hue root, whoever asks and whether or not a session exists;
// plain v1 below a verified certificate only by hand (apiVersion V1) on
// the HueBridge the Secret was paired for.
func TestTheRecordedProofDecidesWhoGetsTheUsername(t *testing.T) {
	ids := identities()
	bridge := func(name string, api huev1alpha1.HueAPI) *huev1alpha1.HueBridge {
		return &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: huev1alpha1.HueBridgeSpec{APIVersion: api,
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	}
	cases := []struct {
		name     string
		recorded string // "" for none
		owner    string
		b        *huev1alpha1.HueBridge
		id       string
		reason   string
	}{
		{"nothing recorded", "", "home", bridge("thief", huev1alpha1.APIV1), "plain v1 at B", ""},
		{"the same address", "plain v1 at A", "", bridge("home", huev1alpha1.APIV1), "plain v1 at A again", ""},
		{"another address", "plain v1 at A", "", bridge("thief", huev1alpha1.APIV1), "plain v1 at B", ReasonBridgeProofMismatch},
		{"insecureSkipVerify over a plain record", "plain v1 at A", "", bridge("thief", huev1alpha1.APIV2), "unverified TLS at A", ReasonBridgeProofMismatch},
		{"plain v1 below a certificate", "caBundle cert 1", "home", bridge("thief", huev1alpha1.APIV1), "plain v1 at B", ReasonBridgeProofMismatch},
		{"plain v1 below a certificate, Auto, the owner", "caBundle cert 1", "home", bridge("home", huev1alpha1.APIAuto), "plain v1 at A", ReasonBridgeProofMismatch},
		{"plain v1 below a certificate, by hand, the owner", "caBundle cert 1", "home", bridge("home", huev1alpha1.APIV1), "plain v1 at A", ""},
		{"plain v1 below a certificate, by hand, a Secret made by hand", "caBundle cert 1", "", bridge("home", huev1alpha1.APIV1), "plain v1 at A", ReasonBridgeProofMismatch},
		{"another caBundle certificate", "caBundle cert 1", "home", bridge("home", huev1alpha1.APIV2), "caBundle cert 2", ReasonBridgeProofMismatch},
		{"a Hue root certificate over a caBundle record", "caBundle cert 1", "home", bridge("thief", huev1alpha1.APIV2), "Hue root cert 1", ""},
		{"a renewed Hue root certificate", "Hue root cert 1", "home", bridge("home", huev1alpha1.APIV2), "Hue root cert 2", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cred := credentials{username: "u", bridgeID: "FAKE", owner: tc.owner}
			if tc.recorded != "" {
				cred.proof, cred.recorded = ids[tc.recorded], true
			}
			if got := reasonOf(checkRecordedProof(tc.b, cred, ids[tc.id])); got != tc.reason {
				t.Errorf("%q, want %q", got, tc.reason)
			}
		})
	}
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

// TestNamespaceNotAllowed: a HueBridge serves only the namespaces it
// allows, and the refusal names them so the user knows where to go.
func TestNamespaceNotAllowed(t *testing.T) {
	allowed := &huev1alpha1.HueBridge{Spec: huev1alpha1.HueBridgeSpec{AllowedNamespaces: []string{"entrance"}}}
	allowed.Name = "home"
	if err := allowedNS(allowed, "entrance"); err != nil {
		t.Fatalf("entrance refused: %v", err)
	}
	err := allowedNS(allowed, "garage")
	if ra, ok := providers.AsRetryAfter(err); !ok || ra.Reason != ReasonNamespaceNotAllowed || !strings.Contains(err.Error(), "entrance") {
		t.Fatalf("garage: %v", err)
	}
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

// TestABridgesSessionsShareItsGroupBudget: a HueBridge whose settings
// change gets a new session for its bridge, and the new session the
// bridge's group budget the old one had (bridge's
// TestSessionsOfABridgeShareItsGroupBudget shows sessions given one budget
// share its slots): the old session's last deletions and the new one's
// first writes take the same slots.
func TestABridgesSessionsShareItsGroupBudget(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	hb := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home", UID: "u1", Generation: 1},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"}, Data: map[string][]byte{"username": []byte("u"), "bridgeid": []byte("FAKE")}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hb, secret).Build()
	f := fakebridge.NewFakeBridge("desk")
	reg := NewRegistry(c, c, Settings{CredentialsNamespaces: []string{"s"}, PollInterval: time.Hour, NewClient: func(string, string, time.Duration) wire.Client { return f }}, logr.Discard())
	t.Cleanup(reg.Stop)
	ctx := context.Background()
	g := NewWithT(t)
	first, err := reg.For(ctx, hb)
	g.Expect(err).NotTo(HaveOccurred())
	reg.mu.Lock()
	budget := reg.groupBudgets["FAKE"]
	reg.mu.Unlock()
	g.Expect(budget).NotTo(BeNil())

	hb.Spec.PollInterval = &metav1.Duration{Duration: 2 * time.Hour} // new settings: a new session
	hb.Generation++
	second, err := reg.For(ctx, hb)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(second).NotTo(BeIdenticalTo(first))
	reg.mu.Lock()
	defer reg.mu.Unlock()
	g.Expect(reg.groupBudgets).To(HaveLen(1))
	g.Expect(reg.groupBudgets["FAKE"]).To(BeIdenticalTo(budget), "the new session has the old one's group budget")
}

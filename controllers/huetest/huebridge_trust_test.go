package huetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/tcpproxy"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// How far Tether trusts a bridge, tested with hostile peers: servers that
// claim another bridge's id, answer in another's place, take a username
// that is not theirs, or flood the event stream. Each hostile server is a
// simulator; what it received is counted by it (CredentialedRequests: the
// requests that carried any username).

// trustQuiet is how long a test watches that nothing reaches a hostile
// server once its HueBridge is refused.
const trustQuiet = 3 * time.Second

// bridgeReady is a HueBridge's Ready condition as "Status/Reason".
func bridgeReady(g Gomega, c client.Client, name string) string {
	var b huev1alpha1.HueBridge
	g.Expect(c.Get(context.Background(), client.ObjectKey{Name: name}, &b)).To(Succeed())
	return readyReason(b.Status.Conditions, "Ready")
}

// updateBridge changes a HueBridge's spec, retrying on conflicts.
func updateBridge(t *testing.T, c client.Client, name string, change func(*huev1alpha1.HueBridgeSpec)) {
	t.Helper()
	NewWithT(t).Eventually(func() error {
		var b huev1alpha1.HueBridge
		if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &b); err != nil {
			return err
		}
		change(&b.Spec)
		return c.Update(context.Background(), &b)
	}, hueTimeout, huePoll).Should(Succeed())
}

// createExtraBridge creates a HueBridge the test's environment does not
// own, deleted (and waited for) when the test ends.
func createExtraBridge(t *testing.T, c client.Client, name string, spec huev1alpha1.HueBridgeSpec) {
	t.Helper()
	ctx := context.Background()
	if spec.PollInterval == nil {
		spec.PollInterval = &metav1.Duration{Duration: huePollInterval}
	}
	NewWithT(t).Expect(c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec})).To(Succeed())
	t.Cleanup(func() {
		_ = c.Delete(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}})
		NewWithT(t).Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: name}, &huev1alpha1.HueBridge{}))
		}, hueTimeout, huePoll).Should(BeTrue(), "HueBridge %s left behind", name)
	})
}

// createSecret creates a credentials Secret, deleted when the test ends.
func createSecret(t *testing.T, c client.Client, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hueSecretsNS, Name: name}, StringData: data}
	NewWithT(t).Expect(c.Create(ctx, s)).To(Succeed())
	t.Cleanup(func() { _ = c.Delete(ctx, s) })
}

// startHostileSim starts a simulator that the test closes, accepting the
// test username (what a thief would hope to be sent).
func startHostileSim(t *testing.T, opts huesim.Options) *huesim.Server {
	t.Helper()
	opts.Usernames = append(opts.Usernames, hueUser)
	sim, err := huesim.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// TestHueBridgeIdentityIsNotTakenOver: a verified CLIP v2 bridge's session
// is not taken over by HueBridges that prove less: one pointing at another
// server that reports the same bridge id over plain v1, and a duplicate of
// the victim's own with insecureSkipVerify. Each is refused with
// BridgeIdentityConflict before any username is sent; the victim stays on
// verified v2 and its HueLights keep reaching its bulbs.
func TestHueBridgeIdentityIsNotTakenOver(t *testing.T) {
	victim := newHueEnvOn(t, wire.APIV2, "victim", true, huesim.Options{Lights: []string{"desk"}})
	g := NewWithT(t)
	l := victim.newLight("entrance", "desk", "desk")
	l.Spec.Brightness = ptr.To[int32](200)
	victim.create(l)
	victim.eventuallyLightReady("entrance", "desk", "True/Available")
	verified := func(g Gomega) {
		st := victim.hueBridge(g).Status
		g.Expect(st.API).To(Equal(huev1alpha1.APIV2))
		g.Expect(st.Certificate).NotTo(BeNil())
		g.Expect(st.Certificate.Check).To(Equal(wire.CertificateVerified))
	}
	g.Eventually(verified, hueTimeout, huePoll).Should(Succeed())

	// Another server that says it is the victim's bridge, over plain v1,
	// with a Secret of its own that names the victim's id.
	impostor := startHostileSim(t, huesim.Options{Lights: []string{"desk"}, BridgeID: victim.sim.BridgeID()})
	createSecret(t, victim.c, "impostor-credentials", map[string]string{
		huev1alpha1.CredentialsKey: hueUser, huev1alpha1.BridgeIDKey: victim.sim.BridgeID()})
	createExtraBridge(t, victim.c, "impostor", huev1alpha1.HueBridgeSpec{
		Address: impostor.Addr(), APIVersion: huev1alpha1.APIV1,
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: "impostor-credentials"}})
	// The same bridge at another address, verified: the same certificate
	// proves it, so it shares the session.
	_, port, _ := strings.Cut(victim.sim.TLSAddr(), ":")
	createExtraBridge(t, victim.c, "alias", huev1alpha1.HueBridgeSpec{
		Address: "localhost:" + port, APIVersion: huev1alpha1.APIV2, CABundle: string(victim.sim.CACertPEM()),
		BridgeID:             victim.sim.BridgeID(),
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: victim.secret}})
	g.Eventually(func(g Gomega) string { return bridgeReady(g, victim.c, "alias") }, hueTimeout, huePoll).Should(Equal("True/Available"))
	// The victim's own address and Secret, without the certificate check.
	createExtraBridge(t, victim.c, "careless", huev1alpha1.HueBridgeSpec{
		Address: victim.sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, InsecureSkipVerify: true,
		BridgeID:             victim.sim.BridgeID(),
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: victim.secret}})

	for _, name := range []string{"impostor", "careless"} {
		g.Eventually(func(g Gomega) string { return bridgeReady(g, victim.c, name) }, hueTimeout, huePoll).
			Should(Equal("False/"+hue.ReasonBridgeIdentityConflict), "HueBridge %s", name)
	}
	var b huev1alpha1.HueBridge
	g.Expect(victim.c.Get(context.Background(), client.ObjectKey{Name: "impostor"}, &b)).To(Succeed())
	// The session speaks through the client of whichever of the victim
	// and its alias bound last (registry.attach), and the refusal names
	// that one: either is right.
	g.Expect(meta.FindStatusCondition(b.Status.Conditions, "Ready").Message).
		To(Or(ContainSubstring("HueBridge "+victim.bridge+" holds"), ContainSubstring("HueBridge alias holds")))
	g.Consistently(verified, trustQuiet, huePoll).Should(Succeed(), "the victim's session keeps its verified client")
	g.Expect(impostor.CredentialedRequests()).To(BeZero(), "the impostor received a username")

	victim.update("entrance", "desk", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](30) })
	g.Eventually(func(g Gomega) int { return victim.bulb(g, "desk").Bri }, hueTimeout, huePoll).Should(Equal(30))
	g.Expect(impostor.Commands()).To(BeEmpty())
}

// TestHueAutoNeverFallsBackToPlainV1AfterVerifiedV2: apiVersion Auto binds a
// bridge over verified CLIP v2 (and records it); then its HTTPS port
// answers plain HTTP (a man in the middle, or a port taken over). Bound
// again, Auto does not fall back to plain v1: the HueBridge says why, and
// nothing, no username in clear above all, reaches the address.
func TestHueAutoNeverFallsBackToPlainV1AfterVerifiedV2(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV2, "downgrade", true, huesim.Options{Lights: []string{"hall"}})
	g := NewWithT(t)
	proxy, err := tcpproxy.New(h.sim.TLSAddr())
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(proxy.Close)
	updateBridge(t, h.c, h.bridge, func(s *huev1alpha1.HueBridgeSpec) {
		s.Address, s.APIVersion = proxy.Addr(), huev1alpha1.APIAuto
	})
	g.Eventually(func(g Gomega) {
		b := h.hueBridge(g)
		g.Expect(b.Spec.Address).To(Equal(proxy.Addr()))
		g.Expect(b.Status.Address).To(Equal(proxy.Addr()))
		g.Expect(b.Status.API).To(Equal(huev1alpha1.APIV2))
		g.Expect(b.Status.Certificate.Check).To(Equal(wire.CertificateVerified))
		g.Expect(b.Status.VerifiedV2BridgeID).To(Equal(b.Status.BridgeID))
	}, hueTimeout, huePoll).Should(Succeed())

	proxy.Retarget(h.sim.Addr()) // the "HTTPS" port now answers plain HTTP
	sent := h.sim.CredentialedRequests()
	updateBridge(t, h.c, h.bridge, func(s *huev1alpha1.HueBridgeSpec) {
		s.PollInterval = &metav1.Duration{Duration: 2 * huePollInterval} // binds again
	})
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, h.bridge) }, hueTimeout, huePoll).
		Should(Equal("False/" + hue.ReasonDowngradeRefused))
	g.Consistently(h.sim.CredentialedRequests, trustQuiet, huePoll).Should(Equal(sent), "a username went out over plain HTTP")
	g.Expect(h.hueBridge(g).Status.API).NotTo(Equal(huev1alpha1.APIV1))
}

// TestHueCredentialsGoOnlyToTheirBridge: a username is tied to the bridge
// that issued it. HueBridges that name a Secret and point elsewhere are
// refused before anything is sent, each with a reason: another
// HueBridge's Secret; the same with that bridge's id as spec.bridgeID; a
// Secret not in use whose bridge id another server does not prove; a
// hand-made Secret that names no bridge id.
func TestHueCredentialsGoOnlyToTheirBridge(t *testing.T) {
	owner := newHueEnvOn(t, wire.APIV2, "owner", true, huesim.Options{Lights: []string{"desk"}})
	g := NewWithT(t)
	g.Eventually(func(g Gomega) string { return bridgeReady(g, owner.c, owner.bridge) }, hueTimeout, huePoll).Should(Equal("True/Available"))
	id := owner.sim.BridgeID()
	createSecret(t, owner.c, "copied-credentials", map[string]string{huev1alpha1.CredentialsKey: hueUser, huev1alpha1.BridgeIDKey: id})
	createSecret(t, owner.c, "bare-credentials", map[string]string{huev1alpha1.CredentialsKey: hueUser})
	ref := func(name string) huev1alpha1.SecretReference {
		return huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: name}
	}
	cases := []struct {
		name   string
		spec   func(addr string) huev1alpha1.HueBridgeSpec
		reason string
	}{
		{"thief", func(addr string) huev1alpha1.HueBridgeSpec {
			return huev1alpha1.HueBridgeSpec{Address: addr, APIVersion: huev1alpha1.APIV1, CredentialsSecretRef: ref(owner.secret)}
		}, hue.ReasonCredentialsSecretInUse},
		{"thief-with-id", func(addr string) huev1alpha1.HueBridgeSpec {
			return huev1alpha1.HueBridgeSpec{Address: addr, APIVersion: huev1alpha1.APIV1, BridgeID: id, CredentialsSecretRef: ref(owner.secret)}
		}, wire.ReasonCertificateMismatch},
		{"copy", func(addr string) huev1alpha1.HueBridgeSpec {
			return huev1alpha1.HueBridgeSpec{Address: addr, APIVersion: huev1alpha1.APIV1, CredentialsSecretRef: ref("copied-credentials")}
		}, hue.ReasonCredentialsForAnotherBridge},
		{"bare", func(addr string) huev1alpha1.HueBridgeSpec {
			return huev1alpha1.HueBridgeSpec{Address: addr, APIVersion: huev1alpha1.APIV1, CredentialsSecretRef: ref("bare-credentials")}
		}, hue.ReasonCredentialsBridgeIDMissing},
	}
	sims := map[string]*huesim.Server{}
	for _, tc := range cases {
		sims[tc.name] = startHostileSim(t, huesim.Options{Lights: []string{"desk"}})
		createExtraBridge(t, owner.c, tc.name, tc.spec(sims[tc.name].Addr()))
	}
	for _, tc := range cases {
		g.Eventually(func(g Gomega) string { return bridgeReady(g, owner.c, tc.name) }, hueTimeout, huePoll).
			Should(Equal("False/"+tc.reason), "HueBridge %s", tc.name)
	}
	g.Consistently(func() map[string]int {
		sent := map[string]int{}
		for name, sim := range sims {
			if n := sim.CredentialedRequests(); n > 0 {
				sent[name] = n
			}
		}
		return sent
	}, trustQuiet, huePoll).Should(BeEmpty(), "a username reached a server that is not its bridge")
	g.Expect(bridgeReady(g, owner.c, owner.bridge)).To(Equal("True/Available"))
}

// liveHeap samples the heap that survived the last GC while a test runs
// and keeps the largest: what the manager (in this process) holds, not
// garbage waiting for a collection.
type liveHeap struct {
	mu   sync.Mutex
	max  uint64
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func watchLiveHeap() *liveHeap {
	h := &liveHeap{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(h.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			h.mu.Lock()
			h.max = max(h.max, sample[0].Value.Uint64())
			h.mu.Unlock()
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *liveHeap) peak() uint64 {
	h.once.Do(func() { close(h.stop) })
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.max
}

func currentLiveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// TestHueHostileBridgeFloodsItsEventStream: a bridge (or a man in the
// middle) that starts every event stream with one 200 MiB message does not
// grow the manager's heap: the stream is dropped past the message limit,
// the HueBridge's status names the cause, and after repeated drops Tether
// polls the bridge.
func TestHueHostileBridgeFloodsItsEventStream(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV2, "flood", true, huesim.Options{Lights: []string{"hall"}})
	g := NewWithT(t)
	h.create(h.newLight("entrance", "hall", "hall"))
	h.eventuallyLightReady("entrance", "hall", "True/Available")
	g.Eventually(func(g Gomega) string {
		es := h.hueBridge(g).Status.EventStream
		g.Expect(es).NotTo(BeNil())
		return es.State
	}, hueTimeout, huePoll).Should(Equal(bridge.StreamConnected))

	base := currentLiveHeap()
	heap := watchLiveHeap()
	t.Cleanup(func() { t.Logf("live heap %d MiB before, at most %d MiB during the flood", base>>20, heap.peak()>>20) })
	h.sim.FloodEventStreams(200 << 20)
	t.Cleanup(func() { h.sim.FloodEventStreams(0) })
	h.sim.DropEventStreams()
	g.Eventually(func(g Gomega) {
		es := h.hueBridge(g).Status.EventStream
		g.Expect(es.State).To(Equal(bridge.StreamPolling))
		g.Expect(strings.ToLower(es.Message)).To(ContainSubstring("message larger than"))
	}, hueTimeout, huePoll).Should(Succeed())
	peak := heap.peak()
	grew := int64(peak) - int64(base)
	g.Expect(grew).To(BeNumerically("<", 64<<20), "the manager's heap grew by %d MiB", grew>>20)
	h.sim.FloodEventStreams(0)
	// Polled, the bridge still works.
	h.update("entrance", "hall", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](40) })
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, hueTimeout, huePoll).Should(Equal(40))
}

// TestHueSceneHonoursAllowedNamespaces: a HueScene is checked against its
// bridge's allowedNamespaces as HueLights and HueGroups are, not trusted
// from its HueGroup's status: once the bridge stops accepting the
// namespace, a new HueScene there stores nothing.
func TestHueSceneHonoursAllowedNamespaces(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV1, "scene-ns", true, roomLights)
	g := NewWithT(t)
	h.sim.AddGroup("Living room", "1", "2", "3")
	h.create(h.newGroup("entrance", "living-room", "Living room"))
	h.eventuallyGroupReady("entrance", "living-room", "True/Available")

	updateBridge(t, h.c, h.bridge, func(s *huev1alpha1.HueBridgeSpec) { s.AllowedNamespaces = []string{"elsewhere"} })
	h.eventuallyGroupReady("entrance", "living-room", "False/"+hue.ReasonNamespaceNotAllowed)
	scenes := len(h.sim.Scenes())
	h.create(&huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "late"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "living-room"}, Name: "Late",
			Lights: []huev1alpha1.SceneLight{{Name: "lamp", Brightness: ptr.To[int32](10)}}},
	})
	eventuallySceneReady(h, "late", "False/"+hue.ReasonNamespaceNotAllowed)
	g.Expect(h.sim.Scenes()).To(HaveLen(scenes), "a scene was stored for a namespace the bridge does not accept")
}

// credentialsSecret reads a credentials Secret.
func credentialsSecret(g Gomega, c client.Client, name string) *corev1.Secret {
	var s corev1.Secret
	g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: hueSecretsNS, Name: name}, &s)).To(Succeed())
	return &s
}

// noneCredentialed watches, for trustQuiet, that none of the hostile
// servers received a request carrying a username.
func noneCredentialed(g Gomega, sims map[string]*huesim.Server) {
	g.Consistently(func() map[string]int {
		sent := map[string]int{}
		for name, sim := range sims {
			if n := sim.CredentialedRequests(); n > 0 {
				sent[name] = n
			}
		}
		return sent
	}, trustQuiet, huePoll).Should(BeEmpty(), "a username reached a server that is not its bridge")
}

// TestHueBridgeIDSpellingsAreOneBridge: a bridge id is one bridge however
// it is spelled. The victim is bound over verified CLIP v2; an attacker's
// HueBridge (apiVersion V1, the victim's Secret and bridge id, its own
// address) whose server writes the victim's id in lower case, or with
// colons, finds the victim's session and is refused by it before any
// username is sent.
func TestHueBridgeIDSpellingsAreOneBridge(t *testing.T) {
	victim := newHueEnvOn(t, wire.APIV2, "spelled", true, huesim.Options{Lights: []string{"desk"}})
	g := NewWithT(t)
	g.Eventually(func(g Gomega) string { return bridgeReady(g, victim.c, victim.bridge) }, hueTimeout, huePoll).Should(Equal("True/Available"))
	id := victim.sim.BridgeID()
	colons := strings.ToLower(id[0:2] + ":" + id[2:4] + ":" + id[4:6] + ":" + id[6:8] + ":" + id[8:10] + ":" + id[10:12] + ":" + id[12:14] + ":" + id[14:16])
	sims := map[string]*huesim.Server{}
	for name, spelled := range map[string]string{"lower-case": strings.ToLower(id), "colons": colons} {
		sims[name] = startHostileSim(t, huesim.Options{Lights: []string{"desk"}, BridgeID: spelled})
		createExtraBridge(t, victim.c, name, huev1alpha1.HueBridgeSpec{
			Address: sims[name].Addr(), APIVersion: huev1alpha1.APIV1, BridgeID: id,
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: victim.secret}})
	}
	for name := range sims {
		g.Eventually(func(g Gomega) string { return bridgeReady(g, victim.c, name) }, hueTimeout, huePoll).
			Should(Equal("False/"+hue.ReasonBridgeIdentityConflict), "HueBridge %s", name)
	}
	noneCredentialed(g, sims)
	g.Expect(bridgeReady(g, victim.c, victim.bridge)).To(Equal("True/Available"))
}

// TestHueInsecureSkipVerifyDoesNotOutrankPlainV1: the victim speaks plain
// v1 (its Secret, made by hand, records that proof at its first binding).
// An attacker's HueBridge with insecureSkipVerify at its own HTTPS server,
// naming the victim's Secret and id, does not count as a stronger proof:
// it is refused, the victim keeps its session, and the attacker's server
// receives no username.
func TestHueInsecureSkipVerifyDoesNotOutrankPlainV1(t *testing.T) {
	victim := newHueEnvOn(t, wire.APIV1, "plain-victim", true, huesim.Options{Lights: []string{"desk"}})
	g := NewWithT(t)
	victim.create(victim.newLight("entrance", "desk", "desk"))
	victim.eventuallyLightReady("entrance", "desk", "True/Available")

	attacker := startHostileSim(t, huesim.Options{Lights: []string{"desk"}, BridgeID: victim.sim.BridgeID()})
	createExtraBridge(t, victim.c, "tls-thief", huev1alpha1.HueBridgeSpec{
		Address: attacker.TLSAddr(), APIVersion: huev1alpha1.APIV2, InsecureSkipVerify: true, BridgeID: victim.sim.BridgeID(),
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: victim.secret}})
	g.Eventually(func(g Gomega) string { return bridgeReady(g, victim.c, "tls-thief") }, hueTimeout, huePoll).
		Should(Equal("False/" + hue.ReasonBridgeIdentityConflict))
	noneCredentialed(g, map[string]*huesim.Server{"tls-thief": attacker})
	g.Expect(bridgeReady(g, victim.c, victim.bridge)).To(Equal("True/Available"))
	victim.update("entrance", "desk", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](30) })
	g.Eventually(func(g Gomega) int { return victim.bulb(g, "desk").Bri }, hueTimeout, huePoll).Should(Equal(30))
	g.Eventually(func(g Gomega) string {
		return string(credentialsSecret(g, victim.c, victim.secret).Data[huev1alpha1.ProofKey])
	}, hueTimeout, huePoll).Should(Equal("plain-v1 "+victim.sim.Addr()), "the first binding records its proof in the Secret")
}

// pairedOverV2 is a HueBridge that Tether paired over verified CLIP v2: its
// Secret, labelled for it, holds the username and the client key (and the
// proof: expectProofRecordedAtPairing).
func pairedOverV2(t *testing.T, name string) *hueEnv {
	t.Helper()
	h := newHueEnvOn(t, wire.APIV2, name, false, huesim.Options{Lights: []string{"hall"}})
	h.sim.PressLinkButton()
	g := NewWithT(t)
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, h.bridge) }, hueTimeout, huePoll).Should(Equal("True/Available"))
	s := credentialsSecret(g, h.c, h.secret)
	g.Expect(s.Labels).To(HaveKeyWithValue(hue.OwnerLabel, h.bridge))
	g.Expect(s.Data[huev1alpha1.ClientKeyKey]).NotTo(BeEmpty())
	return h
}

// expectProofRecordedAtPairing: the Secret of a HueBridge paired over v2
// with its caBundle records the certificate that proved the bridge.
func expectProofRecordedAtPairing(g Gomega, h *hueEnv) {
	g.Expect(string(credentialsSecret(g, h.c, h.secret).Data[huev1alpha1.ProofKey])).To(HavePrefix("ca-bundle-sha256 "),
		"pairing records how the bridge was proven")
}

// deleteBridgeAndWait deletes a HueBridge (its Secret stays) and waits
// until it is gone and its session no longer reads the bridge.
func deleteBridgeAndWait(t *testing.T, h *hueEnv) huev1alpha1.HueBridgeSpec {
	t.Helper()
	g := NewWithT(t)
	spec := h.hueBridge(g).Spec
	g.Expect(h.c.Delete(context.Background(), &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: h.bridge}})).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(h.c.Get(context.Background(), client.ObjectKey{Name: h.bridge}, &huev1alpha1.HueBridge{}))
	}, hueTimeout, huePoll).Should(BeTrue())
	// Nothing reads the bridge once its only HueBridge is gone.
	g.Eventually(func(g Gomega) {
		n := h.sim.CredentialedRequests()
		g.Consistently(h.sim.CredentialedRequests, 2*huePollInterval, huePoll).Should(Equal(n))
	}, hueTimeout, huePoll).Should(Succeed())
	return spec
}

// recreateBridge creates a HueBridge of the test's name again.
func recreateBridge(t *testing.T, h *hueEnv, spec huev1alpha1.HueBridgeSpec) {
	t.Helper()
	NewWithT(t).Expect(h.c.Create(context.Background(), &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: h.bridge}, Spec: spec})).To(Succeed())
}

// TestHueProofRecordedAtPairingOutlivesItsHueBridge: with nothing bound
// (the HueBridge Tether paired over verified v2 deleted, its Secret kept),
// a v1 impostor naming the bridge's id and Secret is refused by the proof
// the Secret records, and its server receives no username; the real
// HueBridge, created again, binds at once (the Secret's owner label, not
// whoever tried to bind with it meanwhile, says whose it is).
func TestHueProofRecordedAtPairingOutlivesItsHueBridge(t *testing.T) {
	h := pairedOverV2(t, "recorded")
	g := NewWithT(t)
	spec := deleteBridgeAndWait(t, h)

	impostor := startHostileSim(t, huesim.Options{Lights: []string{"hall"}, BridgeID: h.sim.BridgeID()})
	createExtraBridge(t, h.c, "impostor-v1", huev1alpha1.HueBridgeSpec{
		Address: impostor.Addr(), APIVersion: huev1alpha1.APIV1, BridgeID: h.sim.BridgeID(),
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: h.secret}})
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, "impostor-v1") }, hueTimeout, huePoll).
		Should(Equal("False/" + hue.ReasonBridgeProofMismatch))
	noneCredentialed(g, map[string]*huesim.Server{"impostor-v1": impostor})

	recreateBridge(t, h, spec)
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, h.bridge) }, hueTimeout, huePoll).Should(Equal("True/Available"))
	g.Expect(impostor.CredentialedRequests()).To(BeZero())
	g.Expect(bridgeReady(g, h.c, "impostor-v1")).To(Equal("False/" + hue.ReasonBridgeProofMismatch))
	expectProofRecordedAtPairing(g, h)
}

// TestHueDowngradeGuardIsKeptWithTheCredentials: a HueBridge paired over
// verified v2, deleted and created again under its name with apiVersion
// Auto at an address that answers plain HTTP (its status, and any
// verifiedV2BridgeID in it, gone), does not fall back to plain v1: the
// Secret says the bridge was verified. Nothing reaches the address until
// apiVersion V1 is set by hand.
func TestHueDowngradeGuardIsKeptWithTheCredentials(t *testing.T) {
	h := pairedOverV2(t, "regained")
	g := NewWithT(t)
	spec := deleteBridgeAndWait(t, h)
	sent := h.sim.CredentialedRequests()

	spec.Address, spec.APIVersion, spec.CABundle = h.sim.Addr(), huev1alpha1.APIAuto, ""
	recreateBridge(t, h, spec)
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, h.bridge) }, hueTimeout, huePoll).
		Should(Equal("False/" + hue.ReasonDowngradeRefused))
	g.Consistently(h.sim.CredentialedRequests, trustQuiet, huePoll).Should(Equal(sent), "a username went out over plain HTTP")

	updateBridge(t, h.c, h.bridge, func(s *huev1alpha1.HueBridgeSpec) { s.APIVersion = huev1alpha1.APIV1 })
	g.Eventually(func(g Gomega) string { return bridgeReady(g, h.c, h.bridge) }, hueTimeout, huePoll).Should(Equal("True/Available"))
	g.Expect(h.hueBridge(g).Status.API).To(Equal(huev1alpha1.APIV1))
	expectProofRecordedAtPairing(g, h)
}

// TestHueForeignAnswerIsNamedNotQuoted: a HueBridge whose address reaches
// a service that is not a bridge (an internal admin page) is told what
// answered by its HTTP status and content type; the answer's body, which
// may hold anything, is in no condition and no event.
func TestHueForeignAnswerIsNamedNotQuoted(t *testing.T) {
	c := startHue(t)
	g := NewWithT(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("INTERNAL-ONLY path=" + r.URL.Path + " db_password=hunter2"))
	}))
	t.Cleanup(srv.Close)
	createExtraBridge(t, c, "nosy", huev1alpha1.HueBridgeSpec{
		Address: srv.Listener.Addr().String(), APIVersion: huev1alpha1.APIV1,
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: "nosy-credentials"}})
	g.Eventually(func(g Gomega) string {
		var b huev1alpha1.HueBridge
		g.Expect(c.Get(context.Background(), client.ObjectKey{Name: "nosy"}, &b)).To(Succeed())
		ready := meta.FindStatusCondition(b.Status.Conditions, "Ready")
		g.Expect(ready).NotTo(BeNil())
		return ready.Message
	}, hueTimeout, huePoll).Should(And(ContainSubstring("HTTP 200"), ContainSubstring(`"text/plain"`)))
	g.Expect(hits.Load()).To(BeNumerically(">", 0))
	var b huev1alpha1.HueBridge
	g.Expect(c.Get(context.Background(), client.ObjectKey{Name: "nosy"}, &b)).To(Succeed())
	for _, cond := range b.Status.Conditions {
		g.Expect(cond.Message).NotTo(Or(ContainSubstring("hunter2"), ContainSubstring("INTERNAL-ONLY")), "condition %s", cond.Type)
	}
	var events eventsv1.EventList
	g.Expect(c.List(context.Background(), &events)).To(Succeed())
	for _, e := range events.Items {
		if e.Regarding.Name == "nosy" {
			g.Expect(e.Note).NotTo(ContainSubstring("hunter2"))
		}
	}
}

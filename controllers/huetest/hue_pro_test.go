package huetest

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// proLights are a Bridge Pro's bulbs in the tests: two for HueLights, one
// for a room, one for a zone's scene.
var proLights = huesim.Options{Lights: []string{"hall", "desk", "landing", "nook"}, Pro: true}

// TestHueBridgePro: a HueBridge with apiVersion Auto at a simulated Hue
// Bridge Pro (huesim.Options.Pro: HTTPS only, 301 from plain HTTP, its
// certificate's shape with the id in upper case, newer and unknown
// resource types, some left out of the full listing) pairs when the link
// button is pressed and binds over verified CLIP v2: Ready, the stream
// Connected, the Secret's proof a verified certificate. HueLights, a
// HueGroup (a room Tether creates) and a HueScene (in a zone) are Ready
// on it. The bridge then pushes changes of its newer and unknown types on
// the event stream: the stream stays Connected with no reconnect, the
// HueBridge Ready, and a drift made after them is still put back by push.
// No request reached the bridge over plain HTTP, and none was refused
// with 429 (Tether keeps to the bridge's three requests at once).
func TestHueBridgePro(t *testing.T) {
	h := newHueEnvOnWith(t, wire.APIV2, "pro", false, proLights, func(s *huev1alpha1.HueBridgeSpec) {
		s.APIVersion = huev1alpha1.APIAuto
	})
	g := NewWithT(t)
	g.Expect(h.sim.BridgeID()).To(HavePrefix("C42996FFFE"))
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)
	}, hueTimeout, huePoll).Should(Equal("False/LinkButtonNotPressed"))
	h.sim.PressLinkButton()
	g.Eventually(func(g Gomega) {
		b := h.hueBridge(g)
		g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/Available"))
		g.Expect(b.Status.EventStream).NotTo(BeNil())
		g.Expect(b.Status.EventStream.State).To(Equal(bridge.StreamConnected))
		g.Expect(b.Status.VerifiedV2BridgeID).NotTo(BeEmpty(), "bound over verified CLIP v2")
	}, hueTimeout, huePoll).Should(Succeed())
	expectProofRecordedAtPairing(g, h)

	for _, bulb := range []string{"hall", "desk"} {
		l := h.newLight("entrance", bulb, bulb)
		l.Spec.Brightness = ptr.To[int32](180)
		h.create(l)
	}
	room := h.newGroup("entrance", "landing", "Landing")
	room.Spec.Type, room.Spec.Lights, room.Spec.Brightness = huev1alpha1.GroupRoom, []string{"landing"}, ptr.To[int32](90)
	h.create(room)
	h.sim.AddZone("Nook", "4")
	h.create(h.newGroup("entrance", "nook", "Nook"))
	h.create(&huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "reading"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "nook"}, Name: "Reading",
			Lights: []huev1alpha1.SceneLight{{Name: "nook", Brightness: ptr.To[int32](120)}}},
	})
	h.eventuallyLightReady("entrance", "hall", "True/Available")
	h.eventuallyLightReady("entrance", "desk", "True/Available")
	h.eventuallyGroupReady("entrance", "landing", "True/Available")
	h.eventuallyGroupReady("entrance", "nook", "True/Available")
	eventuallySceneReady(h, "reading", "True/Available")
	g.Expect(h.bulb(g, "landing").Bri).To(Equal(90))

	// The Pro pushes changes of types Tether does not know.
	reconnects := h.hueBridge(g).Status.EventStream.Reconnects
	messages := h.sim.EventMessages()
	for range 3 {
		h.sim.ChangeProResources()
		g.Eventually(h.sim.EventMessages, hueTimeout, huePoll).Should(BeNumerically(">", messages), "pushed to the open stream")
		messages = h.sim.EventMessages()
	}
	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.Bri = 20 })).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, driftSeen, huePoll).Should(Equal(180), "drift put back by push")
	b := h.hueBridge(g)
	g.Expect(b.Status.EventStream.State).To(Equal(bridge.StreamConnected))
	g.Expect(b.Status.EventStream.Reconnects).To(Equal(reconnects), "no reconnect for the unknown types")
	g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/Available"))

	g.Expect(h.sim.PlainRequests()).To(BeEmpty(), "nothing went over plain HTTP")
	g.Expect(h.sim.TooManyRequests()).To(BeZero(), "no request past the bridge's three at once")
}

// readyMessage is the Ready condition's message.
func readyMessage(conds []metav1.Condition) string {
	for _, c := range conds {
		if c.Type == "Ready" {
			return c.Message
		}
	}
	return ""
}

// TestHueBridgeProAtPlainHTTP: a HueBridge whose address says http:// at
// a Bridge Pro's plain-HTTP port (as one written for a square bridge
// would) is not paired by following the Pro's 301: the redirect is
// refused (wire's refuseRedirects), so the pairing POST never turns into
// a GET at the https address (LedFx/LedFx PR #1856), no username is
// asked for or sent, and the HueBridge is not Ready, saying why. The
// bridge saw the plain-HTTP request and nothing at https; the Ready
// condition says to give the address without http://.
func TestHueBridgeProAtPlainHTTP(t *testing.T) {
	// On V1 the helper gives the plain-HTTP port; the address says http://.
	h := newHueEnvOnWith(t, wire.APIV1, "pro-plain", false, proLights, func(s *huev1alpha1.HueBridgeSpec) {
		s.Address, s.APIVersion = "http://"+s.Address, huev1alpha1.APIAuto
	})
	g := NewWithT(t)
	h.sim.PressLinkButton()
	g.Eventually(func(g Gomega) []huesim.PlainRequest { return h.sim.PlainRequests() }, hueTimeout, huePoll).
		ShouldNot(BeEmpty())
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("False/BridgeProtocolError"))
	g.Expect(readyMessage(h.hueBridge(g).Status.Conditions)).To(ContainSubstring("give its address without http://"),
		"the HueBridge says how to reach a Pro")
	for _, r := range h.sim.PlainRequests() {
		g.Expect(r.Method).To(Equal("GET"), "only the keyless config was asked, over plain HTTP: %+v", r)
		g.Expect(r.Path).To(Equal("/api/config"))
	}
	g.Expect(h.sim.Commands()).To(BeEmpty(), "no pairing reached the bridge, at http or (by a followed redirect) at https")
	g.Expect(h.sim.CredentialedRequests()).To(BeZero())
}

// TestHueBridgeProFullOfLights: 150 HueLights (the most a Bridge Pro
// holds), each a brightness of its own, created at once on one simulated
// Pro over CLIP v2, all become Ready with their bulbs showing it, within
// the bridge's budgets: no request refused with 429 (three at once) and no
// overload (its command budget), and no temporary scene left. How fast is
// bench figure 18's.
func TestHueBridgeProFullOfLights(t *testing.T) {
	names := make([]string, huesim.ProMaxLights)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%03d", i)
	}
	h := newHueEnvOn(t, wire.APIV2, "pro-full", true, huesim.Options{Lights: names, Pro: true})
	g := NewWithT(t)
	for i, name := range names {
		l := h.newLight("entrance", name, name)
		l.Spec.Brightness = ptr.To(int32(10 + i%240))
		h.create(l)
	}
	for _, name := range names {
		h.eventuallyLightReady("entrance", name, "True/Available")
	}
	for i, name := range names {
		g.Expect(h.bulb(g, name).Bri).To(Equal(10+i%240), name)
	}
	g.Eventually(func() []string { return sceneIDsOf(h.sim.Scenes()) }, hueTimeout, huePoll).Should(BeEmpty(),
		"no temporary scene is left")
	g.Expect(h.sim.TooManyRequests()).To(BeZero(), "no request past the bridge's three at once")
	g.Expect(h.sim.Overloads()).To(BeZero(), "no command past the bridge's budget")
	g.Expect(h.sim.PlainRequests()).To(BeEmpty())
}

// TestHueBridgeProCertificateChain: a Bridge Pro whose certificate is
// issued by an intermediate below the root Tether trusts (the simulator's
// root-bridge, as caBundle) binds over CLIP v2 when the bridge sends the
// intermediate, and is refused, with nothing credentialed sent, when it
// does not: Tether verifies the chain as the bridge sends it and fetches
// nothing (whether real Pro units leave the intermediate out is not on
// record: huesim.ProChain).
func TestHueBridgeProCertificateChain(t *testing.T) {
	for _, tc := range []struct {
		chain huesim.ProChain
		ready string
	}{
		{huesim.ProIntermediate, "True/Available"},
		{huesim.ProIncompleteChain, "False/CertificateUntrusted"},
	} {
		t.Run(string(tc.chain), func(t *testing.T) {
			h := newHueEnvOn(t, wire.APIV2, "pro-"+string(tc.chain), true,
				huesim.Options{Lights: []string{"hall"}, Pro: true, ProChain: tc.chain})
			g := NewWithT(t)
			g.Eventually(func(g Gomega) string { return readyReason(h.hueBridge(g).Status.Conditions, "Ready") },
				hueTimeout, huePoll).Should(Equal(tc.ready))
			if tc.chain == huesim.ProIncompleteChain {
				g.Expect(h.sim.CredentialedRequests()).To(BeZero(), "the username is not sent")
			}
		})
	}
}

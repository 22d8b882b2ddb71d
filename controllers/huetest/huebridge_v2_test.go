package huetest

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The HueBridge on CLIP v2: what only v2 has (the certificate, the event
// stream, Auto choosing it). The behaviours both APIs share run on both in
// the table-driven suites (forEachAPI).

// TestHueV2AutoPicksV2: apiVersion Auto at a bridge's HTTPS address:
// Tether speaks v2, verifies the certificate against caBundle and the
// bridge id, and changes arrive by events; at a bridge's plain HTTP address
// Auto speaks v1 and no certificate is involved.
func TestHueV2AutoPicksV2(t *testing.T) {
	plain := newHueEnvWithBridge(t, "auto-http", true, huesim.Options{Lights: []string{"hallway"}},
		func(s *huev1alpha1.HueBridgeSpec) { s.APIVersion = huev1alpha1.APIAuto })
	h := newHueEnvOn(t, wire.APIV2, "auto-https", true, huesim.Options{Lights: []string{"hallway"}})
	g := NewWithT(t)
	ctx := context.Background()
	g.Eventually(func() error {
		var b huev1alpha1.HueBridge
		if err := h.c.Get(ctx, client.ObjectKey{Name: h.bridge}, &b); err != nil {
			return err
		}
		b.Spec.APIVersion = huev1alpha1.APIAuto
		return h.c.Update(ctx, &b)
	}, hueTimeout, huePoll).Should(Succeed())
	h.create(h.newLight("entrance", "hallway", "hallway"))

	status := func(h *hueEnv, g Gomega) huev1alpha1.HueBridgeStatus {
		b := h.hueBridge(g)
		g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/Available"))
		return b.Status
	}
	g.Eventually(func(g Gomega) {
		st := status(h, g)
		g.Expect(h.hueBridge(g).Spec.APIVersion).To(Equal(huev1alpha1.APIAuto))
		g.Expect(st.API).To(Equal(huev1alpha1.APIV2))
		g.Expect(st.Certificate).NotTo(BeNil())
		g.Expect(st.Certificate.Check).To(Equal(wire.CertificateVerified))
		g.Expect(strings.EqualFold(st.Certificate.Subject, st.BridgeID)).To(BeTrue(), "the certificate names the bridge")
		g.Expect(st.EventStream).NotTo(BeNil())
		g.Expect(st.EventStream.State).To(Equal(bridge.StreamConnected))
	}, hueTimeout, huePoll).Should(Succeed())
	g.Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeTrue())
	g.Expect(h.hueBridge(g).Status.VerifiedV2BridgeID).To(Equal(h.hueBridge(g).Status.BridgeID), "verified over v2: recorded")
	// Plain v1, because Auto found no v2: Ready, with a note and one
	// Warning event saying the username travels in clear.
	g.Eventually(func(g Gomega) {
		b := plain.hueBridge(g)
		g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/" + hue.ReasonPlainV1))
		g.Expect(b.Status.API).To(Equal(huev1alpha1.APIV1))
		g.Expect(b.Status.Certificate.Check).To(Equal(wire.CertificateNone))
		g.Expect(b.Status.EventStream).To(BeNil())
		g.Expect(b.Status.VerifiedV2BridgeID).To(BeEmpty())
	}, hueTimeout, huePoll).Should(Succeed())
	g.Expect(meta.FindStatusCondition(plain.hueBridge(g).Status.Conditions, "Ready").Message).To(ContainSubstring("unencrypted"))
	expectOneWarning(g, plain, hue.ReasonPlainV1, "one Warning event names the plain v1")
}

// expectOneWarning waits for the Warning event with reason about h's
// HueBridge (events go out after the status write, through a broadcaster
// of their own) and checks no second one follows.
func expectOneWarning(g Gomega, h *hueEnv, reason, what string) {
	count := func(g Gomega) int { return warningsFor(g, h, reason) }
	g.Eventually(count, hueTimeout, huePoll).Should(Equal(1), what)
	g.Consistently(count, time.Second, huePoll).Should(Equal(1), what)
}

// warningsFor counts the Warning events with reason about h's HueBridge.
func warningsFor(g Gomega, h *hueEnv, reason string) int {
	var events eventsv1.EventList
	g.Expect(h.c.List(context.Background(), &events)).To(Succeed())
	n := 0
	for _, e := range events.Items {
		if e.Regarding.Name == h.bridge && e.Reason == reason && e.Type == "Warning" {
			n++
		}
	}
	return n
}

// TestHueV2CertificateRefused: a bridge whose certificate names another
// bridge than the one it says it is, and one whose CA nobody trusts, are
// refused with a condition that says so, and nothing reaches the bulbs;
// insecureSkipVerify accepts it, as an opt-in that Ready's reason and one
// Warning event name.
func TestHueV2CertificateRefused(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	impostor := newHueEnvOn(t, wire.APIV2, "impostor", true, huesim.Options{Lights: []string{"desk"}, CertificateName: "001788fffe0000ff"})
	impostor.create(impostor.newLight("entrance", "desk", "desk"))
	g.Eventually(func(g Gomega) string {
		return readyReason(impostor.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("False/" + wire.ReasonCertificateMismatch))
	msg := meta.FindStatusCondition(impostor.hueBridge(g).Status.Conditions, "Ready").Message
	g.Expect(msg).To(ContainSubstring(`names bridge "001788fffe0000ff"`))
	g.Expect(impostor.sim.CredentialedRequests()).To(BeZero(), "the key went out before the certificate's id was checked")
	impostor.eventuallyLightReady("entrance", "desk", "False/"+wire.ReasonCertificateMismatch)

	// Another CA than the bridge's.
	stranger := newHueEnvOn(t, wire.APIV2, "stranger", true, huesim.Options{Lights: []string{"lamp"}})
	g.Eventually(func() error { // the controller writes status meanwhile: retry a conflict
		var b huev1alpha1.HueBridge
		if err := stranger.c.Get(ctx, client.ObjectKey{Name: stranger.bridge}, &b); err != nil {
			return err
		}
		b.Spec.CABundle = string(impostor.sim.CACertPEM())
		return stranger.c.Update(ctx, &b)
	}, hueTimeout, huePoll).Should(Succeed())
	g.Eventually(func(g Gomega) string {
		return readyReason(stranger.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("False/" + wire.ReasonCertificateUntrusted))
	g.Expect(impostor.sim.Commands()).To(BeEmpty())
	// A HueLight that never reached its bulb through the refused
	// certificate has nothing to switch off: deleting it does not hang.
	lamp := stranger.newLight("entrance", "lamp", "lamp")
	stranger.create(lamp)
	stranger.eventuallyLightReady("entrance", "lamp", "False/"+wire.ReasonCertificateUntrusted)
	g.Expect(stranger.c.Delete(ctx, lamp)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(stranger.c.Get(ctx, clientKey(lamp), &huev1alpha1.HueLight{}))
	}, hueTimeout, huePoll).Should(BeTrue(), "deleting a HueLight behind a refused certificate hangs")
	g.Expect(stranger.sim.Commands()).To(BeEmpty())

	// The opt-in: accepted, said in Ready and by one Warning event.
	g.Eventually(func() error {
		var b huev1alpha1.HueBridge
		if err := impostor.c.Get(ctx, client.ObjectKey{Name: impostor.bridge}, &b); err != nil {
			return err
		}
		b.Spec.CABundle, b.Spec.InsecureSkipVerify = "", true
		return impostor.c.Update(ctx, &b)
	}, hueTimeout, huePoll).Should(Succeed())
	g.Eventually(func(g Gomega) string {
		return readyReason(impostor.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("True/" + hue.ReasonInsecureTLS))
	g.Expect(impostor.hueBridge(g).Status.Certificate.Check).To(Equal(wire.CertificateSkipped))
	g.Eventually(func(g Gomega) bool { return impostor.bulb(g, "desk").On }, hueTimeout, huePoll).Should(BeTrue())
	expectOneWarning(g, impostor, hue.ReasonInsecureTLS, "one Warning event names the opt-in")
}

// TestHueV2StreamDroppedAndResumed: the bridge drops its event stream and
// refuses the next one; a change made in the Hue app meanwhile is put back
// (the read after the reconnect shows it), and the HueBridge's status
// counts the reconnects. A bridge that keeps dropping it makes Tether
// poll, and the status says so.
func TestHueV2StreamDroppedAndResumed(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV2, "drops", true, huesim.Options{Lights: []string{"hall"}})
	g := NewWithT(t)
	l := h.newLight("entrance", "hall", "hall")
	l.Spec.Brightness = ptr.To[int32](200)
	h.create(l)
	h.eventuallyLightReady("entrance", "hall", "True/Available")
	g.Eventually(func(g Gomega) string {
		es := h.hueBridge(g).Status.EventStream
		g.Expect(es).NotTo(BeNil())
		return es.State
	}, hueTimeout, huePoll).Should(Equal(bridge.StreamConnected))

	h.sim.DropNewEventStreams(1)
	h.sim.DropEventStreams()
	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.Bri = 20 })).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, hueTimeout, huePoll).Should(Equal(200), "the change made while the stream was down is put back")
	g.Eventually(func(g Gomega) {
		es := h.hueBridge(g).Status.EventStream
		g.Expect(es.State).To(Equal(bridge.StreamConnected))
		g.Expect(es.Reconnects).To(BeNumerically(">=", 2))
	}, hueTimeout, huePoll).Should(Succeed())

	h.sim.DropNewEventStreams(1000)
	h.sim.DropEventStreams()
	g.Eventually(func(g Gomega) {
		es := h.hueBridge(g).Status.EventStream
		g.Expect(es.State).To(Equal(bridge.StreamPolling))
		g.Expect(es.Message).To(ContainSubstring("dropped its event stream"))
	}, hueTimeout, huePoll).Should(Succeed())
	// Polled: a change is still put back.
	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.Bri = 30 })).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, hueTimeout, huePoll).Should(Equal(200))
	h.sim.DropNewEventStreams(0)
}

package controllers

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueV2BridgeWithoutV1: a CLIP v2 bridge whose firmware answers 404 on
// every v1 path but pairing and the public config. The HueBridge is Ready
// with its id, name and version read over CLIP v2 and its stream
// Connected; HueLights are Ready and a change made in the Hue app is put
// back by push; the only v1 request is the keyless public config Tether
// reads before it sends the key (none refused, none with the key). A
// HueGroup, which still needs v1 on CLIP v2, says so (RoomsNotSupported)
// rather than failing on an answer it cannot read. On the code before,
// the HueBridge read /api/config after binding too and the bridge's config
// came from it, and the sender listed v1 groups and scenes at its start:
// v1 requests after the binding, refused.
func TestHueV2BridgeWithoutV1(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV2, "without-v1", true, huesim.Options{Lights: []string{"hall", "desk"}, V1Off: true, Name: "Upstairs"})
	g := NewWithT(t)
	for _, bulb := range []string{"hall", "desk"} {
		l := h.newLight("entrance", bulb, bulb)
		l.Spec.Brightness = ptr.To[int32](180)
		h.create(l)
	}
	g.Eventually(func(g Gomega) {
		b := h.hueBridge(g)
		g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/Available"))
		g.Expect(b.Status.BridgeID).To(Equal(h.sim.BridgeID()))
		g.Expect(b.Status.Name).To(Equal("Upstairs"), "the bridge device's name, over CLIP v2")
		g.Expect(b.Status.APIVersion).NotTo(BeEmpty(), "the bridge device's software version, over CLIP v2")
		g.Expect(b.Status.EventStream).NotTo(BeNil())
		g.Expect(b.Status.EventStream.State).To(Equal(bridge.StreamConnected))
	}, hueTimeout, huePoll).Should(Succeed())
	h.eventuallyLightReady("entrance", "hall", "True/Available")
	h.eventuallyLightReady("entrance", "desk", "True/Available")
	g.Expect(h.bulb(g, "hall").Bri).To(Equal(180))

	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.Bri = 20 })).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, driftSeen, huePoll).Should(Equal(180), "drift put back")
	h.eventuallyLightReady("entrance", "hall", "True/Available")

	reqs := h.sim.V1Requests()
	g.Expect(reqs).NotTo(BeEmpty(), "the keyless probe reads the public config")
	g.Expect(reqs).To(HaveEach(huesim.V1Request{Method: "GET", Path: "/api/config"}),
		"nothing but the keyless public config was asked of v1")
	g.Expect(h.hueBridge(g).Status.EventStream.State).To(Equal(bridge.StreamConnected))

	// What still needs v1 says so.
	gr := h.newGroup("entrance", "upstairs", "Upstairs")
	gr.Spec.Type, gr.Spec.Lights, gr.Spec.Brightness = huev1alpha1.GroupRoom, []string{"hall", "desk"}, ptr.To[int32](90)
	h.create(gr)
	h.eventuallyGroupReady("entrance", "upstairs", "False/"+hue.ReasonRoomsNotSupported)
	g.Expect(h.sim.Commands()).NotTo(ContainElement(HaveField("Path", ContainSubstring("/groups/"))), "no group command reached the bulbs")
	// Not yet: deleting that HueGroup waits for v1 too (its Delete connects
	// through the rooms client), so the test lets go of it by hand.
	g.Expect(h.c.Delete(context.Background(), gr)).To(Succeed())
	h.dropFinalizers(context.Background(), &huev1alpha1.HueGroupList{})
	h.eventuallyLightReady("entrance", "hall", "True/Available")
}

package huetest

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueLightDynamicsSpeed: spec.dynamics.speed on CLIP v2 goes with an
// effect and is read back while the effect plays (a speed changed in the
// Hue app is put back by push); to a bulb playing nothing, whose bridge
// says its speed is not valid, it is sent once, and Ready says it is taken
// as shown, with no command more, counted over several poll intervals; on
// a v1 bridge the field is named as CLIP v2 only, with no command for it.
func TestHueLightDynamicsSpeed(t *testing.T) {
	slow := &huev1alpha1.Dynamics{Speed: ptr.To(huev1alpha1.Speed(0.3))}

	t.Run("V2", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV2, "dynamics", true, huesim.Options{Lights: []string{"candles", "quiet"},
			Models: map[string]string{"candles": "LCA001", "quiet": "LCA001"}})
		g := NewWithT(t)
		candles := h.newLight("entrance", "candles", "candles")
		candles.Spec.Effect, candles.Spec.Dynamics = ptr.To("candle"), slow
		h.create(candles)
		quiet := h.newLight("entrance", "quiet", "quiet")
		quiet.Spec.Dynamics = slow
		h.create(quiet)

		h.eventuallyLightReady("entrance", "candles", "True/Available")
		g.Eventually(func(g Gomega) {
			b := h.bulb(g, "candles")
			g.Expect(b.V2Effect).To(Equal("candle"))
			g.Expect(b.V2Speed).To(Equal(0.3))
			st := h.light(g, "entrance", "candles").Status
			g.Expect(st.Observed).NotTo(BeNil())
			g.Expect(st.Observed.Speed).To(Equal(ptr.To(huev1alpha1.Speed(0.3))))
			g.Expect(st.Capabilities.Dynamics).To(BeTrue())
		}, hueTimeout, huePoll).Should(Succeed())

		t.Run("changed in the Hue app, put back by push", func(t *testing.T) {
			before := h.commandsCarrying("1", "speed")
			g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.V2Speed = 0.9 })).To(Succeed())
			NewWithT(t).Eventually(func(g Gomega) float64 { return h.bulb(g, "candles").V2Speed }, hueTimeout, huePoll).
				Should(Equal(0.3))
			NewWithT(t).Expect(h.commandsCarrying("1", "speed")-before).To(Equal(1), "one command puts the speed back")
		})

		t.Run("a bulb playing nothing: sent once, taken as shown", func(t *testing.T) {
			h.expectLimited("entrance", "quiet", "the bridge does not report dynamics.speed for this bulb: it accepted 0.3")
			g := NewWithT(t)
			g.Expect(h.bulb(g, "quiet").V2Speed).To(Equal(0.3))
			sent := h.lightCommands("2")
			g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("2").Should(Equal(sent),
				"a speed the bridge says is not valid is not sent again")
			g.Expect(h.commandsCarrying("2", "speed")).To(Equal(1))
			h.expectNoRepeats(g, "2")
		})
	})

	t.Run("V1", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV1, "dynamics", true, huesim.Options{Lights: []string{"candles"},
			Models: map[string]string{"candles": "LCA001"}})
		g := NewWithT(t)
		l := h.newLight("entrance", "candles", "candles")
		l.Spec.Dynamics = slow
		h.create(l)
		h.expectLimited("entrance", "candles", "dynamics.speed is a CLIP v2 feature and this light's bridge speaks the v1 API")
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "candles").On }, hueTimeout, huePoll).Should(BeTrue())
		sent := h.lightCommands("1")
		g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("1").Should(Equal(sent))
		g.Expect(h.commandsCarrying("1", "speed")).To(BeZero())
		h.expectNoRepeats(g, "1")
		g.Expect(h.light(g, "entrance", "candles").Status.Capabilities.Dynamics).To(BeFalse())
	})
}

package huetest

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueLightPowerup: spec.powerup on CLIP v2 is sent to a bulb that has
// the setting, whether the HueLight wants it on or off, and read back like
// its state (a setting changed in the Hue app is put back by push); a bulb
// without the setting is named in Ready (Limited) and never sent one,
// counted over several poll intervals; on a v1 bridge the field is named
// as CLIP v2 only, with no command for it.
func TestHueLightPowerup(t *testing.T) {
	staysOff := &huev1alpha1.Powerup{Preset: "custom", On: &huev1alpha1.PowerupOn{Mode: "on", On: ptr.To(false)}}

	t.Run("V2", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV2, "powerup", true, huesim.Options{Lights: []string{"newer", "plain"},
			Models: map[string]string{"newer": "LCA001"}})
		g := NewWithT(t)
		newer := h.newLight("entrance", "newer", "newer")
		newer.Spec.On, newer.Spec.Powerup = ptr.To(false), staysOff
		h.create(newer)
		plain := h.newLight("entrance", "plain", "plain")
		plain.Spec.Powerup = &huev1alpha1.Powerup{Preset: "powerfail"}
		h.create(plain)

		h.eventuallyLightReady("entrance", "newer", "True/Available")
		g.Eventually(func(g Gomega) {
			p := h.bulb(g, "newer").V2Powerup
			g.Expect(p).NotTo(BeNil())
			g.Expect(p.Preset).To(Equal("custom"))
			g.Expect(string(p.On)).To(MatchJSON(`{"mode":"on","on":{"on":false}}`))
			st := h.light(g, "entrance", "newer").Status
			g.Expect(st.Observed).NotTo(BeNil())
			g.Expect(st.Observed.Powerup).To(Equal("custom"))
			g.Expect(st.Capabilities.Powerup).To(BeTrue())
		}, hueTimeout, huePoll).Should(Succeed())
		g.Expect(h.bulb(g, "newer").On).To(BeFalse(), "the setting went without switching the bulb on")

		t.Run("changed in the Hue app, put back by push", func(t *testing.T) {
			before := h.commandsCarrying("1", "powerup")
			g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) {
				s.V2Powerup = &huesim.Powerup{Preset: "last_on_state", Configured: true}
			})).To(Succeed())
			NewWithT(t).Eventually(func(g Gomega) string { return h.bulb(g, "newer").V2Powerup.Preset }, hueTimeout, huePoll).
				Should(Equal("custom"))
			NewWithT(t).Expect(h.commandsCarrying("1", "powerup")-before).To(Equal(1), "one command puts the setting back")
		})

		t.Run("a bulb without the setting: named, never sent", func(t *testing.T) {
			h.expectLimited("entrance", "plain", "this bulb (LCT015, Extended color light) has no powerup setting: powerup is ignored")
			g := NewWithT(t)
			g.Eventually(func(g Gomega) bool { return h.bulb(g, "plain").On }, hueTimeout, huePoll).
				Should(BeTrue(), "the rest of the spec (on) still applies")
			sent := h.lightCommands("2")
			g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("2").Should(Equal(sent),
				"nothing more is sent to a bulb that cannot take the setting")
			g.Expect(h.commandsCarrying("2", "powerup")).To(BeZero())
			h.expectNoRepeats(g, "2")
			g.Expect(h.light(g, "entrance", "plain").Status.Capabilities.Powerup).To(BeFalse())
		})
	})

	t.Run("V1", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV1, "powerup", true, huesim.Options{Lights: []string{"newer"},
			Models: map[string]string{"newer": "LCA001"}})
		g := NewWithT(t)
		l := h.newLight("entrance", "newer", "newer")
		l.Spec.Powerup = &huev1alpha1.Powerup{Preset: "safety"}
		h.create(l)
		h.expectLimited("entrance", "newer", "powerup safety is a CLIP v2 feature and this light's bridge speaks the v1 API")
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "newer").On }, hueTimeout, huePoll).Should(BeTrue())
		sent := h.lightCommands("1")
		g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("1").Should(Equal(sent))
		g.Expect(h.commandsCarrying("1", "powerup")).To(BeZero())
		h.expectNoRepeats(g, "1")
		g.Expect(h.light(g, "entrance", "newer").Status.Capabilities.Powerup).To(BeFalse())
	})
}

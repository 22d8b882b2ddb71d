package huetest

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// effectQuiet is how long a HueLight whose effect is not sent is watched
// for a command: several poll intervals, each a pass that would resend it.
const effectQuiet = 4 * huePollInterval

// commandsCarrying are the commands the simulator received for a bulb
// whose body carries field (as a JSON key or value), on either API.
func (h *hueEnv) commandsCarrying(id, field string) int {
	n := 0
	for _, c := range h.sim.Commands() {
		if c.ForLight(id) && strings.Contains(string(c.Body), field) {
			n++
		}
	}
	return n
}

// expectNoRepeats fails when the bridge received the same command body
// twice for a bulb: the stall breaker's rule, that what a bulb does not
// show is not resent.
func (h *hueEnv) expectNoRepeats(g Gomega, id string) {
	seen := map[string]bool{}
	for _, c := range h.sim.Commands() {
		if !c.ForLight(id) {
			continue
		}
		g.Expect(seen[string(c.Body)]).To(BeFalse(), "command %s sent twice to light %s", c.Body, id)
		seen[string(c.Body)] = true
	}
}

// expectLimited waits for Ready=True/Limited with a message naming msg.
func (h *hueEnv) expectLimited(ns, name, msg string) {
	h.t.Helper()
	NewWithT(h.t).Eventually(func(g Gomega) {
		c := meta.FindStatusCondition(h.light(g, ns, name).Status.Conditions, "Ready")
		g.Expect(c).NotTo(BeNil())
		g.Expect(string(c.Status) + "/" + c.Reason).To(Equal("True/" + hue.ReasonLimited))
		g.Expect(c.Message).To(ContainSubstring(msg))
	}, hueTimeout, huePoll).Should(Succeed())
}

// TestHueLightEffects: spec.effect on CLIP v2 is sent to a bulb that lists
// the effect and read back like the rest of its state (an effect changed
// in the Hue app is put back by push); an effect the bulb does not list,
// or a bulb without effects, is named in Ready (Limited) and never sent,
// counted over several poll intervals; on a v1 bridge the field is named
// as CLIP v2 only, with no command for it.
func TestHueLightEffects(t *testing.T) {
	t.Run("V2", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV2, "effects", true, huesim.Options{Lights: []string{"candles", "plain", "newer"},
			Models: map[string]string{"candles": "LCA001", "newer": "LCA001"}})
		g := NewWithT(t)
		withEffect := func(name, bulb, effect string) {
			l := h.newLight("entrance", name, bulb)
			l.Spec.Effect = ptr.To(effect)
			h.create(l)
		}
		withEffect("candles", "candles", "candle")
		withEffect("plain", "plain", "candle")
		// underwater is a name Hue documents that this bulb does not list.
		withEffect("newer", "newer", "underwater")

		h.eventuallyLightReady("entrance", "candles", "True/Available")
		g.Expect(h.bulb(g, "candles").V2Effect).To(Equal("candle"))
		g.Eventually(func(g Gomega) {
			st := h.light(g, "entrance", "candles").Status
			g.Expect(st.Observed).NotTo(BeNil())
			g.Expect(st.Observed.Effect).To(Equal("candle"))
			g.Expect(st.Capabilities.Effects).To(ContainElement("candle"))
		}, hueTimeout, huePoll).Should(Succeed())

		t.Run("changed in the Hue app, put back by push", func(t *testing.T) {
			before := h.lightCommands("1")
			g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.V2Effect = "fire" })).To(Succeed())
			NewWithT(t).Eventually(func(g Gomega) string { return h.bulb(g, "candles").V2Effect }, hueTimeout, huePoll).
				Should(Equal("candle"))
			NewWithT(t).Expect(h.lightCommands("1")-before).To(Equal(1), "one command puts the effect back")
		})

		t.Run("a bulb without effects and an effect a bulb does not list: named, never sent", func(t *testing.T) {
			h.expectLimited("entrance", "plain", "this bulb (LCT015, Extended color light) has no effects: effect candle is ignored")
			h.expectLimited("entrance", "newer", "has no effect underwater (it lists no_effect, candle, fire")
			g := NewWithT(t)
			g.Eventually(func(g Gomega) bool { return h.bulb(g, "plain").On && h.bulb(g, "newer").On }, hueTimeout, huePoll).
				Should(BeTrue(), "the rest of the spec (on) still applies")
			sent := h.lightCommands("2") + h.lightCommands("3")
			g.Consistently(func() int { return h.lightCommands("2") + h.lightCommands("3") }, effectQuiet, huePoll).
				Should(Equal(sent), "nothing more is sent to bulbs that cannot show the effect")
			g.Expect(h.commandsCarrying("2", "effect")).To(BeZero())
			g.Expect(h.commandsCarrying("3", "effect")).To(BeZero())
			h.expectNoRepeats(g, "2")
			h.expectNoRepeats(g, "3")
			plain, _ := h.sim.Light("2")
			g.Expect(plain.State.V2Effect).To(BeEmpty())
		})
	})

	t.Run("V1", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV1, "effects", true, huesim.Options{Lights: []string{"candles"},
			Models: map[string]string{"candles": "LCA001"}})
		g := NewWithT(t)
		l := h.newLight("entrance", "candles", "candles")
		l.Spec.Effect = ptr.To("candle")
		h.create(l)
		h.expectLimited("entrance", "candles", "effect candle is a CLIP v2 feature and this light's bridge speaks the v1 API")
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "candles").On }, hueTimeout, huePoll).Should(BeTrue())
		sent := h.lightCommands("1")
		g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("1").Should(Equal(sent))
		g.Expect(h.commandsCarrying("1", "effect")).To(BeZero())
		h.expectNoRepeats(g, "1")
		g.Expect(h.light(g, "entrance", "candles").Status.Capabilities.Effects).To(BeEmpty())
	})
}

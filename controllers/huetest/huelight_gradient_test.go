package huetest

import (
	"testing"

	. "github.com/onsi/gomega"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// gradientOf is a spec gradient of the given points.
func gradientOf(mode string, points ...[2]float64) *huev1alpha1.Gradient {
	g := &huev1alpha1.Gradient{Mode: mode}
	for _, p := range points {
		g.Points = append(g.Points, huev1alpha1.GradientPoint{XY: []huev1alpha1.Chromaticity{huev1alpha1.Chromaticity(p[0]), huev1alpha1.Chromaticity(p[1])}})
	}
	return g
}

// TestHueLightGradient: spec.gradient on CLIP v2 is sent to a gradient
// lightstrip (points and mode) and read back like its state (a gradient
// changed in the Hue app is put back by push); a mode the strip does not
// list is named in Ready (Limited) and the points go without it, once; a
// bulb without a gradient is named and never sent one, counted over
// several poll intervals; on a v1 bridge the field is named as CLIP v2
// only, with no command for it.
func TestHueLightGradient(t *testing.T) {
	sunset := [][2]float64{{0.6, 0.35}, {0.5, 0.4}, {0.3, 0.2}}

	t.Run("V2", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV2, "gradient", true, huesim.Options{Lights: []string{"strip", "plain", "other strip"},
			Models: map[string]string{"strip": "LCX004", "other strip": "LCX004"}})
		g := NewWithT(t)
		strip := h.newLight("entrance", "strip", "strip")
		strip.Spec.Gradient = gradientOf("random_pixelated", sunset...)
		h.create(strip)
		plain := h.newLight("entrance", "plain", "plain")
		plain.Spec.Gradient = gradientOf("", sunset...)
		h.create(plain)
		other := h.newLight("entrance", "other-strip", "other strip")
		other.Spec.Gradient = gradientOf("segmented_palette", sunset[:2]...)
		h.create(other)

		h.eventuallyLightReady("entrance", "strip", "True/Available")
		g.Eventually(func(g Gomega) {
			shown := h.bulb(g, "strip").V2Gradient
			g.Expect(shown).NotTo(BeNil())
			g.Expect(shown.Points).To(Equal(sunset))
			g.Expect(shown.Mode).To(Equal("random_pixelated"))
			st := h.light(g, "entrance", "strip").Status
			g.Expect(st.Observed).NotTo(BeNil())
			g.Expect(st.Observed.Gradient).NotTo(BeNil())
			g.Expect(st.Observed.Gradient.Points).To(HaveLen(3))
			g.Expect(st.Capabilities.Gradient).NotTo(BeNil())
			g.Expect(st.Capabilities.Gradient.PointsCapable).To(BeEquivalentTo(5))
		}, hueTimeout, huePoll).Should(Succeed())

		t.Run("changed in the Hue app, put back by push", func(t *testing.T) {
			before := h.commandsCarrying("1", "gradient")
			g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) {
				s.V2Gradient = &huesim.Gradient{Points: [][2]float64{{0.2, 0.2}, {0.3, 0.3}}, Mode: "interpolated_palette"}
			})).To(Succeed())
			NewWithT(t).Eventually(func(g Gomega) [][2]float64 { return h.bulb(g, "strip").V2Gradient.Points }, hueTimeout, huePoll).
				Should(Equal(sunset))
			NewWithT(t).Expect(h.commandsCarrying("1", "gradient")-before).To(Equal(1), "one command puts the gradient back")
		})

		t.Run("a mode the strip does not list: named, the points sent once without it", func(t *testing.T) {
			h.expectLimited("entrance", "other-strip", "has no gradient mode segmented_palette (it lists interpolated_palette")
			g := NewWithT(t)
			g.Eventually(func(g Gomega) [][2]float64 {
				shown := h.bulb(g, "other strip").V2Gradient
				g.Expect(shown).NotTo(BeNil())
				return shown.Points
			}, hueTimeout, huePoll).Should(Equal(sunset[:2]))
			sent := h.lightCommands("3")
			g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("3").Should(Equal(sent))
			g.Expect(h.commandsCarrying("3", "gradient")).To(Equal(1))
			h.expectNoRepeats(g, "3")
		})

		t.Run("a bulb without a gradient: named, never sent", func(t *testing.T) {
			h.expectLimited("entrance", "plain", "this bulb (LCT015, Extended color light) has no gradient: gradient is ignored")
			g := NewWithT(t)
			g.Eventually(func(g Gomega) bool { return h.bulb(g, "plain").On }, hueTimeout, huePoll).
				Should(BeTrue(), "the rest of the spec (on) still applies")
			sent := h.lightCommands("2")
			g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("2").Should(Equal(sent))
			g.Expect(h.commandsCarrying("2", "gradient")).To(BeZero())
			h.expectNoRepeats(g, "2")
			g.Expect(h.light(g, "entrance", "plain").Status.Capabilities.Gradient).To(BeNil())
		})
	})

	t.Run("V1", func(t *testing.T) {
		h := newHueEnvOn(t, wire.APIV1, "gradient", true, huesim.Options{Lights: []string{"strip"},
			Models: map[string]string{"strip": "LCX004"}})
		g := NewWithT(t)
		l := h.newLight("entrance", "strip", "strip")
		l.Spec.Gradient = gradientOf("", sunset...)
		h.create(l)
		h.expectLimited("entrance", "strip", "gradient is a CLIP v2 feature and this light's bridge speaks the v1 API")
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "strip").On }, hueTimeout, huePoll).Should(BeTrue())
		sent := h.lightCommands("1")
		g.Consistently(h.lightCommands, effectQuiet, huePoll).WithArguments("1").Should(Equal(sent))
		g.Expect(h.commandsCarrying("1", "gradient")).To(BeZero())
		h.expectNoRepeats(g, "1")
		g.Expect(h.light(g, "entrance", "strip").Status.Capabilities.Gradient).To(BeNil())
	})
}

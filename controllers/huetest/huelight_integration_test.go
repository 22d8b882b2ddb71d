package huetest

import (
	"context"
	"math"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueTalkManifest is the talk: apply, dim, switch off, colour, drift,
// delete.
func TestHueTalkManifest(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "talk", true, "hallway", "kitchen")
		g := NewWithT(t)

		// The manifest from the talk, unchanged but for its apiVersion: no
		// bridgeRef (only one HueBridge exists), no on (defaults to true).
		h.create(&huev1alpha1.HueLight{
			ObjectMeta: metav1.ObjectMeta{Name: "hallway-light", Namespace: "entrance"},
			Spec:       huev1alpha1.HueLightSpec{Name: "hallway", Brightness: ptr.To[int32](254)},
		})
		g.Eventually(func(g Gomega) {
			s := h.bulb(g, "hallway")
			g.Expect(s.On).To(BeTrue())
			g.Expect(s.Bri).To(Equal(254))
		}, hueTimeout, huePoll).Should(Succeed())
		h.eventuallyLightReady("entrance", "hallway-light", "True/Available")
		l := h.light(g, "entrance", "hallway-light")
		g.Expect(l.Status.LightID).To(Equal("1"))
		g.Expect(*l.Status.Reachable).To(BeTrue())
		g.Expect(l.Spec.OnDelete).To(Equal(huev1alpha1.DeletionTurnOff), "default onDelete")
		g.Expect(testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("hue", "GetLights", providers.ResultOK))).To(BeNumerically(">", 0))
		g.Expect(testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("hue", "SetLightState", providers.ResultOK))).To(BeNumerically(">", 0))

		t.Run("dim", func(t *testing.T) {
			h.update("entrance", "hallway-light", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](40) })
			NewWithT(t).Eventually(func(g Gomega) int { return h.bulb(g, "hallway").Bri }, hueTimeout, huePoll).Should(Equal(40))
		})
		t.Run("colours", func(t *testing.T) {
			colours := []struct {
				name  string
				color huev1alpha1.Color
				check func(huesim.LightState) bool
			}{
				{"xy", huev1alpha1.Color{XY: []huev1alpha1.Chromaticity{0.2, 0.3}},
					// As a bridge reports it: to four decimals, one lower at times.
					func(s huesim.LightState) bool {
						return s.ColorMode == "xy" && math.Abs(s.XY[0]-0.2) < 0.0002 && math.Abs(s.XY[1]-0.3) < 0.0002
					}},
				{"ct", huev1alpha1.Color{ColorTemperature: ptr.To[int32](250)},
					func(s huesim.LightState) bool { return s.ColorMode == "ct" && s.CT == 250 }},
				// hue 0 / sat 0 is what huego's omitempty would drop. v2 takes
				// it as xy (white): the bridge reports sat 0 either way.
				{"hue/sat zero", huev1alpha1.Color{Hue: ptr.To[int32](0), Saturation: ptr.To[int32](0)},
					func(s huesim.LightState) bool {
						return s.Sat == 0 && (s.ColorMode == "hs" && api == wire.APIV1 || s.ColorMode == "xy" && api == wire.APIV2)
					}},
			}
			for _, c := range colours {
				h.update("entrance", "hallway-light", func(l *huev1alpha1.HueLight) { l.Spec.Color = c.color.DeepCopy() })
				NewWithT(t).Eventually(func(g Gomega) huesim.LightState { return h.bulb(g, "hallway") }, hueTimeout, huePoll).
					Should(Satisfy(c.check), "colour %s", c.name)
			}
		})
		t.Run("switched off in the Hue app comes back on", func(t *testing.T) {
			// Four times in a row, the same drift: each is put back (the
			// stall breaker stops only writes that never show), by one
			// command. How soon is make bench's to measure (figures 5 and
			// 11: within a poll on v1, by push on CLIP v2), not a test's: a
			// loaded CI machine missed a bound of two poll intervals.
			for range 4 {
				h.eventuallyLightReady("entrance", "hallway-light", "True/Available")
				g.Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeTrue())
				before, msgs := h.lightCommands("1"), h.sim.EventMessages()
				g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.On = false })).To(Succeed())
				changed := time.Now()
				NewWithT(t).Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, 50*time.Millisecond).
					Should(BeTrue())
				t.Logf("drift corrected in %s", time.Since(changed).Round(10*time.Millisecond))
				NewWithT(t).Expect(h.lightCommands("1")-before).To(Equal(1), "one command corrects the drift")
				// The next drift only after a read (v1) or an event (v2) has
				// shown the correction.
				// On v2 these are two messages, the drift's and the
				// correction's: Tether corrects only once the drift's has
				// arrived, and the bridge may hold the correction's for up
				// to a second (its event batching), or not at all.
				if api == wire.APIV2 {
					g.Eventually(h.sim.EventMessages, hueTimeout, huePoll).Should(BeNumerically(">=", msgs+2))
					continue
				}
				g.Eventually(func(g Gomega) bool {
					return h.sim.GetCounts()["/lights"] > 0
				}, hueTimeout, huePoll).Should(BeTrue())
				h.sim.ResetGetCounts()
				g.Eventually(func() int { return h.sim.GetCounts()["/lights"] }, hueTimeout, huePoll).Should(BeNumerically(">", 0))
			}
		})
		t.Run("off", func(t *testing.T) {
			h.update("entrance", "hallway-light", func(l *huev1alpha1.HueLight) { l.Spec.On = ptr.To(false) })
			NewWithT(t).Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeFalse())
		})
		t.Run("delete turns the light off", func(t *testing.T) {
			h.update("entrance", "hallway-light", func(l *huev1alpha1.HueLight) { l.Spec.On = ptr.To(true) })
			NewWithT(t).Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeTrue())
			NewWithT(t).Expect(h.c.Delete(context.Background(), h.light(g, "entrance", "hallway-light"))).To(Succeed())
			NewWithT(t).Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeFalse())
		})
	})
}

func TestHueOnDeleteKeep(t *testing.T) {
	h := newHueEnv(t, "keep", true, "porch")
	g := NewWithT(t)
	l := h.newLight("entrance", "porch", "porch")
	l.Spec.OnDelete = huev1alpha1.DeletionKeep
	h.create(l)
	g.Eventually(func(g Gomega) bool { return h.bulb(g, "porch").On }, hueTimeout, huePoll).Should(BeTrue())
	h.eventuallyLightReady("entrance", "porch", "True/Available")
	g.Expect(h.c.Delete(context.Background(), l)).To(Succeed())
	g.Eventually(func() bool {
		return h.c.Get(context.Background(), clientKey(l), &huev1alpha1.HueLight{}) != nil
	}, hueTimeout, huePoll).Should(BeTrue(), "HueLight gone")
	g.Expect(h.bulb(g, "porch").On).To(BeTrue(), "onDelete: Keep leaves the light on")
}

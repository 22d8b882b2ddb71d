package huetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// lastBody returns the last command body sent to a bulb (either API),
// decoded.
func (h *hueEnv) lastBody(g Gomega, id string) map[string]any {
	var last map[string]any
	for _, c := range h.sim.Commands() {
		if c.ForLight(id) {
			last = map[string]any{}
			g.Expect(json.Unmarshal(c.Body, &last)).To(Succeed())
		}
	}
	return last
}

// transitionSent is the transition in a light command body: v1's
// transitiontime in tenths of a second, v2's dynamics.duration in ms.
func transitionSent(api string, body map[string]any) (time.Duration, bool) {
	if api == wire.APIV1 {
		tt, ok := body["transitiontime"].(float64)
		return time.Duration(tt) * 100 * time.Millisecond, ok
	}
	dyn, _ := body["dynamics"].(map[string]any)
	ms, ok := dyn["duration"].(float64)
	return time.Duration(ms) * time.Millisecond, ok
}

// TestHueLightByIDWithTransition: a HueLight naming its bulb by v1 id (on
// v2 found through id_v1) with a transition, sent as the API has it; an
// instant transition (0, which huego would leave out) is sent too.
func TestHueLightByIDWithTransition(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "byid", true, "hallway", "kitchen")
		g := NewWithT(t)
		l := &huev1alpha1.HueLight{
			ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "second"},
			Spec: huev1alpha1.HueLightSpec{
				BridgeRef:      &huev1alpha1.BridgeReference{Name: h.bridge},
				ID:             "2",
				Brightness:     ptr.To[int32](80),
				TransitionTime: &metav1.Duration{Duration: 1500 * time.Millisecond},
			},
		}
		h.create(l)
		g.Eventually(func(g Gomega) int { return h.bulb(g, "kitchen").Bri }, hueTimeout, huePoll).Should(Equal(80))
		sent, ok := transitionSent(api, h.lastBody(g, "2"))
		g.Expect(ok).To(BeTrue(), "no transition in %v", h.lastBody(g, "2"))
		g.Expect(sent).To(Equal(1500*time.Millisecond), "1.5 s is 15 tenths (v1), 1500 ms (v2)")

		h.update("entrance", "second", func(l *huev1alpha1.HueLight) {
			l.Spec.TransitionTime = &metav1.Duration{}
			l.Spec.Brightness = ptr.To[int32](90)
		})
		g.Eventually(func(g Gomega) int { return h.bulb(g, "kitchen").Bri }, hueTimeout, huePoll).Should(Equal(90))
		sent, ok = transitionSent(api, h.lastBody(g, "2"))
		g.Expect(ok).To(BeTrue(), "an instant transition left out: %v", h.lastBody(g, "2"))
		g.Expect(sent).To(BeZero())
		g.Expect(h.bulb(g, "hallway").On).To(BeFalse(), "only light 2 was addressed")
	})
}

func TestHueBridgeAllowedNamespaces(t *testing.T) {
	h := newHueEnv(t, "allowed", true, "hallway")
	g := NewWithT(t)
	ctx := context.Background()
	g.Eventually(func() error {
		var b huev1alpha1.HueBridge
		if err := h.c.Get(ctx, client.ObjectKey{Name: h.bridge}, &b); err != nil {
			return err
		}
		b.Spec.AllowedNamespaces = []string{"entrance"}
		return h.c.Update(ctx, &b)
	}, hueTimeout, huePoll).Should(Succeed())
	g.Expect(h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garage"}})).To(Or(Succeed(), WithTransform(apierrors.IsAlreadyExists, BeTrue())))

	h.create(h.newLight("garage", "intruder", "hallway"))
	h.eventuallyLightReady("garage", "intruder", "False/NamespaceNotAllowed")
	g.Expect(fmt.Sprint(h.light(g, "garage", "intruder").Status.Conditions)).To(ContainSubstring("only accepts HueLights from namespaces entrance"))
	g.Expect(h.bulb(g, "hallway").On).To(BeFalse())

	h.create(h.newLight("entrance", "welcome", "hallway"))
	g.Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeTrue())

	// The refused HueLight never held the bulb: deleting it lets go at
	// once and leaves the light to the allowed one.
	g.Expect(h.c.Delete(ctx, h.light(g, "garage", "intruder"))).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(h.c.Get(ctx, client.ObjectKey{Namespace: "garage", Name: "intruder"}, &huev1alpha1.HueLight{}))
	}, hueTimeout, huePoll).Should(BeTrue())
	g.Expect(h.bulb(g, "hallway").On).To(BeTrue())
}

package controllers

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
)

// lastBody returns the last command body sent to a bulb, decoded.
func (h *hueEnv) lastBody(g Gomega, id string) map[string]any {
	var last map[string]any
	for _, c := range h.sim.Commands() {
		if c.Path == "/lights/"+id+"/state" {
			last = map[string]any{}
			g.Expect(json.Unmarshal(c.Body, &last)).To(Succeed())
		}
	}
	return last
}

func TestHueLightByIDWithTransition(t *testing.T) {
	h := newHueEnv(t, "byid", true, "hallway", "kitchen")
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
	g.Expect(h.lastBody(g, "2")).To(HaveKeyWithValue("transitiontime", BeNumerically("==", 15)), "1.5s is 15 tenths")

	// An instant transition is 0, which huego would leave out: it must be sent.
	h.update("entrance", "second", func(l *huev1alpha1.HueLight) {
		l.Spec.TransitionTime = &metav1.Duration{}
		l.Spec.Brightness = ptr.To[int32](90)
	})
	g.Eventually(func(g Gomega) int { return h.bulb(g, "kitchen").Bri }, hueTimeout, huePoll).Should(Equal(90))
	g.Expect(h.lastBody(g, "2")).To(HaveKeyWithValue("transitiontime", BeNumerically("==", 0)))
	g.Expect(h.bulb(g, "hallway").On).To(BeFalse(), "only light 2 was addressed")
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

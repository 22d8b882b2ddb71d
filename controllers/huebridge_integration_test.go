package controllers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

func (h *hueEnv) hueBridge(g Gomega) *huev1alpha1.HueBridge {
	var b huev1alpha1.HueBridge
	g.Expect(h.c.Get(context.Background(), client.ObjectKey{Name: h.bridge}, &b)).To(Succeed())
	return &b
}

func TestHueBridgePairing(t *testing.T) {
	h := newHueEnv(t, "pairing", false, "hallway")
	g := NewWithT(t)
	h.create(h.newLight("entrance", "hallway-light", "hallway"))

	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)
	}, hueTimeout, huePoll).Should(Equal("False/LinkButtonNotPressed"))
	paired := meta.FindStatusCondition(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)
	g.Expect(paired.Message).To(Equal("press the link button on the bridge"))
	h.eventuallyLightReady("entrance", "hallway-light", "False/NotPaired")

	// Tether asks every few seconds, not in a loop.
	askedAt := time.Now()
	g.Eventually(func() int { return len(h.sim.Commands()) }, hueTimeout, huePoll).Should(BeNumerically(">=", 2))
	g.Expect(time.Since(askedAt)).To(BeNumerically(">=", 2*time.Second), "pairing attempts too close together")

	h.sim.PressLinkButton()
	var secret corev1.Secret
	g.Eventually(func() error {
		return h.c.Get(context.Background(), client.ObjectKey{Namespace: hueSecretsNS, Name: h.secret}, &secret)
	}, hueTimeout, huePoll).Should(Succeed())
	username := string(secret.Data[huev1alpha1.CredentialsKey])
	g.Expect(username).NotTo(BeEmpty())
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("True/Available"))
	g.Expect(readyReason(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)).To(Equal("True/Paired"))

	// The HueLight waiting for the pairing goes on by itself.
	g.Eventually(func(g Gomega) bool { return h.bulb(g, "hallway").On }, hueTimeout, huePoll).Should(BeTrue())
	b := h.hueBridge(g)
	g.Expect(b.Status.BridgeID).NotTo(BeEmpty())
	g.Expect(b.Status.LightCount).To(Equal(int32(1)))

	// The username appears in no status and no event.
	for _, obj := range []any{b.Status, h.light(g, "entrance", "hallway-light").Status} {
		raw, _ := json.Marshal(obj)
		g.Expect(string(raw)).NotTo(ContainSubstring(username))
	}
	var events eventsv1.EventList
	g.Expect(h.c.List(context.Background(), &events)).To(Succeed())
	for _, e := range events.Items {
		g.Expect(e.Note).NotTo(ContainSubstring(username))
	}
}

func TestHueWrongCredentials(t *testing.T) {
	h := newHueEnv(t, "wrongcreds", false, "hallway")
	h.writeSecret("not-a-user-of-this-bridge")
	g := NewWithT(t)
	h.create(h.newLight("entrance", "hallway-light", "hallway"))

	g.Eventually(func(g Gomega) []string {
		c := h.hueBridge(g).Status.Conditions
		return []string{readyReason(c, "Ready"), readyReason(c, huev1alpha1.ConditionPaired)}
	}, hueTimeout, huePoll).Should(Equal([]string{"False/Unauthorized", "False/Unauthorized"}))
	h.eventuallyLightReady("entrance", "hallway-light", "False/Unauthorized")
	g.Expect(h.bulb(g, "hallway").On).To(BeFalse())

	// This HueLight never switched the bulb, so deleting it does not wait
	// for a re-pairing (one that did would wait, saying Unauthorized, until
	// paused), and nothing reaches the bulb.
	ctx := context.Background()
	g.Expect(h.c.Delete(ctx, h.light(g, "entrance", "hallway-light"))).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(h.c.Get(ctx, client.ObjectKey{Namespace: "entrance", Name: "hallway-light"}, &huev1alpha1.HueLight{}))
	}, hueTimeout, huePoll).Should(BeTrue(), "the HueLight that never held a bulb is let go")
	g.Expect(h.sim.Commands()).To(BeEmpty(), "nothing reached the bulb")
}

package huetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/huesim"
)

func (h *hueEnv) hueBridge(g Gomega) *huev1alpha1.HueBridge {
	var b huev1alpha1.HueBridge
	g.Expect(h.c.Get(context.Background(), client.ObjectKey{Name: h.bridge}, &b)).To(Succeed())
	ctrltest.ExpectHealth(g, &b)
	return &b
}

func TestHueBridgePairing(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "pairing", false, "hallway")
		g := NewWithT(t)
		h.create(h.newLight("entrance", "hallway-light", "hallway"))

		g.Eventually(func(g Gomega) string {
			return readyReason(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)
		}, hueTimeout, huePoll).Should(Equal("False/LinkButtonNotPressed"))
		paired := meta.FindStatusCondition(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired)
		g.Expect(paired.Message).To(Equal("press the link button on the bridge"))
		h.eventuallyLightReady("entrance", "hallway-light", "False/NotPaired")

		// Tether asks again after 3 s, then less and less often (up to every
		// 15 s), keeping its prompt.
		g.Eventually(func() int { return len(h.sim.Commands()) }, hueTimeout, huePoll).Should(BeNumerically(">=", 4))
		asks := h.sim.Commands()
		var gaps []time.Duration
		for i := 1; i < 4; i++ {
			gaps = append(gaps, asks[i].Time.Sub(asks[i-1].Time))
		}
		g.Expect(gaps[0]).To(BeNumerically(">=", 2*time.Second), "pairing attempts too close together: %v", gaps)
		g.Expect(gaps[2]).To(BeNumerically(">=", gaps[0]*3/2), "pairing does not back off: %v", gaps)
		g.Expect(meta.FindStatusCondition(h.hueBridge(g).Status.Conditions, huev1alpha1.ConditionPaired).Message).
			To(Equal("press the link button on the bridge"))

		h.sim.PressLinkButton()
		var secret corev1.Secret
		g.Eventually(func() error {
			return h.c.Get(context.Background(), client.ObjectKey{Namespace: hueSecretsNS, Name: h.secret}, &secret)
		}, hueTimeout, huePoll).Should(Succeed())
		username := string(secret.Data[huev1alpha1.CredentialsKey])
		g.Expect(username).NotTo(BeEmpty())
		g.Expect(secret.Data[huev1alpha1.ClientKeyKey]).NotTo(BeEmpty(), "the client key is stored beside the username")
		g.Expect(strings.EqualFold(string(secret.Data[huev1alpha1.BridgeIDKey]), h.sim.BridgeID())).To(BeTrue(),
			"the id of the bridge that issued the username is stored beside it: %q", secret.Data[huev1alpha1.BridgeIDKey])
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
	})
}

func TestHueWrongCredentials(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "wrongcreds", false, "hallway")
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
	})
}

// TestHueHandMadeSecretFilledInIsPickedUp: a Secret someone made without a
// username is refused (CredentialsSecretNotOwned: Tether never writes into
// it, nor pairs); once its username (and the bridge's id, which a
// hand-made Secret must name) is put in, the HueBridge binds with it
// at its next look, within the link button's cadence (15 s), not after the
// minute it used to wait. Tether watches no Secrets, so only that look can
// see the change.
func TestHueHandMadeSecretFilledInIsPickedUp(t *testing.T) {
	h := newHueEnv(t, "handmade", false, "hallway")
	h.writeSecret("")
	g := NewWithT(t)
	ctx := context.Background()
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("False/CredentialsSecretNotOwned"))

	g.Eventually(func() error {
		var s corev1.Secret
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: hueSecretsNS, Name: h.secret}, &s); err != nil {
			return err
		}
		s.Data = map[string][]byte{huev1alpha1.CredentialsKey: []byte(hueUser), huev1alpha1.BridgeIDKey: []byte(h.sim.BridgeID())}
		return h.c.Update(ctx, &s)
	}, hueTimeout, huePoll).Should(Succeed())
	g.Eventually(func(g Gomega) []string {
		c := h.hueBridge(g).Status.Conditions
		return []string{readyReason(c, "Ready"), readyReason(c, huev1alpha1.ConditionPaired)}
	}, hueTimeout, huePoll).Should(Equal([]string{"True/Available", "True/Paired"}))
	var s corev1.Secret
	g.Expect(h.c.Get(ctx, client.ObjectKey{Namespace: hueSecretsNS, Name: h.secret}, &s)).To(Succeed())
	g.Expect(s.Labels).To(BeEmpty(), "Tether marked a Secret it did not create")
	g.Expect(string(s.Data[huev1alpha1.CredentialsKey])).To(Equal(hueUser))
}

// TestHueBridgeHealthFromThePoller: a steady HueBridge with lights costs
// its bridge one GET /lights per poll interval (the poller's) and no /config,
// however often it is reconciled; going offline and back still flips its
// Ready condition, and a new bulb shows in its light count, within a few
// polls (well before its 30 s resync).
func TestHueBridgeHealthFromThePoller(t *testing.T) {
	h := newHueEnv(t, "steady", true, "hallway", "kitchen")
	g := NewWithT(t)
	ctx := context.Background()
	h.create(h.newLight("entrance", "hallway-light", "hallway"))
	h.eventuallyLightReady("entrance", "hallway-light", "True/Available")
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("True/Available"))

	h.sim.ResetGetCounts()
	start := time.Now()
	// Each annotation change reconciles the HueBridge (it does not change
	// its generation, so the poller is kept). Nudge it until it reports a
	// newer last contact, from the poller's cache, a few times over.
	nudges := 0
	nudge := func() {
		b := h.hueBridge(g)
		if b.Annotations == nil {
			b.Annotations = map[string]string{}
		}
		nudges++
		b.Annotations["test.tether.dev/nudge"] = fmt.Sprint(nudges)
		_ = h.c.Update(ctx, b) // a conflict with the controller: the next nudge
	}
	for i := range 3 {
		before := h.hueBridge(g).Status.LastContactTime
		g.Eventually(func(g Gomega) bool {
			nudge()
			return h.hueBridge(g).Status.LastContactTime.After(before.Time)
		}, hueTimeout, 300*time.Millisecond).Should(BeTrue(), "reconcile %d reported a newer last contact", i)
	}
	g.Consistently(func() int { return h.sim.GetCounts()["/config"] }, 2*huePollInterval, huePoll).Should(BeZero())
	intervals := int(time.Since(start) / huePollInterval)
	gets := h.sim.GetCounts()
	t.Logf("%d poll intervals: GETs %v", intervals, gets)
	g.Expect(gets).To(HaveKey("/lights"))
	g.Expect(gets).To(HaveLen(1), "GET /lights only: no /config, no per-light reads")
	g.Expect(gets["/lights"]).To(BeNumerically(">=", intervals-1))
	g.Expect(gets["/lights"]).To(BeNumerically("<=", intervals+1))

	// Health still follows the bridge within a few polls, not the resync.
	fewPolls := 5 * huePollInterval
	h.sim.Offline(huesim.Refuse)
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, fewPolls, huePoll).Should(Equal("False/BridgeUnreachable"))
	g.Expect(h.sim.Online()).To(Succeed())
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, fewPolls, huePoll).Should(Equal("True/Available"))
	h.sim.AddLight("attic")
	g.Eventually(func(g Gomega) int32 { return h.hueBridge(g).Status.LightCount }, fewPolls, huePoll).Should(Equal(int32(3)))
}

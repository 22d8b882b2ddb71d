package huetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
)

func TestHueBridgeOffline(t *testing.T) {
	h := newHueEnv(t, "offline", true, "lamp")
	g := NewWithT(t)
	l := h.newLight("entrance", "lamp", "lamp")
	l.Spec.Brightness = ptr.To[int32](100)
	h.create(l)
	h.eventuallyLightReady("entrance", "lamp", "True/Available")

	// The bridge stops answering (requests hang until the client's deadline).
	h.sim.Offline(huesim.Hang)
	offlineAt := time.Now()
	h.sim.ResetGetCounts()
	h.sim.ResetCommands()
	h.eventuallyLightReady("entrance", "lamp", "False/BridgeUnreachable")
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("False/BridgeUnreachable"))
	h.update("entrance", "lamp", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](30) })
	g.Consistently(func(g Gomega) string {
		return readyReason(h.light(g, "entrance", "lamp").Status.Conditions, "Ready")
	}, 20*time.Second-time.Since(offlineAt), 500*time.Millisecond).Should(Equal("False/BridgeUnreachable"))

	offlineFor := time.Since(offlineAt)
	gets := h.sim.GetCounts()
	t.Logf("offline %s: GETs %v, commands %d", offlineFor.Round(time.Second), gets, len(h.sim.Commands()))
	// One poller per bridge, at most one GET /lights per poll interval: no
	// hot loop however often the HueLight is retried.
	g.Expect(gets["/lights"]).To(BeNumerically("<=", int(offlineFor/huePollInterval)+2))
	g.Expect(h.sim.Commands()).To(BeEmpty(), "no command can have reached a hanging bridge")

	g.Expect(h.sim.Online()).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "lamp").Bri }, hueTimeout, huePoll).Should(Equal(30))
	h.eventuallyLightReady("entrance", "lamp", "True/Available")
	g.Eventually(func(g Gomega) string {
		return readyReason(h.hueBridge(g).Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("True/Available"))
}

// TestHueDeleteWhileBridgeOffline: the HueLight waits, saying why, and
// turns the light off once the bridge is back.
func TestHueDeleteWhileBridgeOffline(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "offlinedelete", true, "lamp")
		g := NewWithT(t)
		l := h.newLight("entrance", "lamp", "lamp")
		h.create(l)
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "lamp").On }, hueTimeout, huePoll).Should(BeTrue())
		h.eventuallyLightReady("entrance", "lamp", "True/Available")

		h.sim.Offline(huesim.Refuse)
		h.eventuallyLightReady("entrance", "lamp", "False/BridgeUnreachable")
		g.Expect(h.c.Delete(context.Background(), l)).To(Succeed())
		g.Eventually(func(g Gomega) string {
			return readyReason(h.light(g, "entrance", "lamp").Status.Conditions, "Synced")
		}, hueTimeout, huePoll).Should(Equal("False/BridgeUnreachable"))
		g.Expect(h.bulb(g, "lamp").On).To(BeTrue())

		g.Expect(h.sim.Online()).To(Succeed())
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "lamp").On }, hueTimeout, huePoll).Should(BeFalse())
		g.Eventually(func() bool {
			return apierrors.IsNotFound(h.c.Get(context.Background(), clientKey(l), &huev1alpha1.HueLight{}))
		}, hueTimeout, huePoll).Should(BeTrue())
	})
}

func TestHueLightUnreachable(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "unreachable", true, "garden")
		g := NewWithT(t)
		h.create(h.newLight("entrance", "garden", "garden"))
		h.eventuallyLightReady("entrance", "garden", "True/Available")

		g.Expect(h.sim.SetReachable("1", false)).To(Succeed())
		h.eventuallyLightReady("entrance", "garden", "False/LightUnreachable")
		g.Expect(*h.light(g, "entrance", "garden").Status.Reachable).To(BeFalse())
		h.sim.ResetCommands()
		h.update("entrance", "garden", func(l *huev1alpha1.HueLight) { l.Spec.Brightness = ptr.To[int32](5) })
		g.Consistently(func() int { return h.lightCommands("1") }, 3*huePollInterval, huePoll).Should(BeZero(),
			"nothing is sent to a bulb the bridge cannot reach")

		g.Expect(h.sim.SetReachable("1", true)).To(Succeed())
		g.Eventually(func(g Gomega) int { return h.bulb(g, "garden").Bri }, hueTimeout, huePoll).Should(Equal(5))
		h.eventuallyLightReady("entrance", "garden", "True/Available")
	})
}

func TestHueLightNotFoundListsTheBridgesLights(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		h := newHueEnvAPI(t, api, "notfound", true, "hallway", "kitchen")
		g := NewWithT(t)
		h.create(h.newLight("entrance", "attic", "attic"))
		h.eventuallyLightReady("entrance", "attic", "False/LightNotFound")
		msg := h.light(g, "entrance", "attic").Status.Conditions
		g.Expect(fmt.Sprint(msg)).To(ContainSubstring(`it has: "hallway", "kitchen"`))

		// A bulb named attic is added on the bridge: the poller notices it.
		h.sim.AddLight("attic")
		g.Eventually(func(g Gomega) bool { return h.bulb(g, "attic").On }, hueTimeout, huePoll).Should(BeTrue())
	})
}

func TestHueTwoClaimsOnOneBulb(t *testing.T) {
	h := newHueEnv(t, "claims", true, "desk")
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "study"}})).To(Or(Succeed(), WithTransform(apierrors.IsAlreadyExists, BeTrue())))

	first := h.newLight("entrance", "desk-a", "desk")
	first.Spec.Brightness = ptr.To[int32](200)
	h.create(first)
	h.eventuallyLightReady("entrance", "desk-a", "True/Available")
	second := h.newLight("study", "desk-b", "desk")
	second.Spec.Brightness = ptr.To[int32](10)
	h.create(second)
	h.eventuallyLightReady("study", "desk-b", "False/Conflict")
	g.Expect(fmt.Sprint(h.light(g, "study", "desk-b").Status.Conditions)).To(ContainSubstring("entrance/desk-a"))

	g.Consistently(func(g Gomega) int { return h.bulb(g, "desk").Bri }, 3*huePollInterval, huePoll).Should(Equal(200),
		"the later HueLight sends nothing")
	for _, c := range h.sim.Commands() {
		g.Expect(string(c.Body)).NotTo(ContainSubstring(`"bri":10`), "command from the later HueLight: %s", c.Body)
	}

	// The first lets go (and turns the bulb off); the second takes over.
	g.Expect(h.c.Delete(ctx, first)).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "desk").Bri }, hueTimeout, huePoll).Should(Equal(10))
	h.eventuallyLightReady("study", "desk-b", "True/Available")
	g.Expect(h.bulb(g, "desk").On).To(BeTrue())
}

// TestHueManyLightsConverge applies 200 HueLights in four rooms at once,
// each wanting its own brightness, on a bridge without temporary scenes (so
// no group command can help: every one is a light command; the scene path
// is TestHueDistinctStatesUseATemporaryScene). The bridge (like a real one)
// answers 503 past 10 commands/s: none may be refused, and every room must
// get its share from the start.
func TestHueManyLightsConverge(t *testing.T) {
	const n, rooms = 200, 4
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%03d", i)
	}
	h := newHueEnvWithBridge(t, "many", true, huesim.Options{Lights: names}, withoutTemporaryScenes)
	g := NewWithT(t)
	ctx := context.Background()
	for r := range rooms {
		ns := fmt.Sprintf("room-%d", r)
		g.Expect(h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Or(Succeed(), WithTransform(apierrors.IsAlreadyExists, BeTrue())))
	}
	start := time.Now()
	for i, name := range names {
		l := h.newLight(fmt.Sprintf("room-%d", i%rooms), name, name)
		l.Spec.Brightness = ptr.To(int32(i + 1))
		h.create(l)
	}
	g.Eventually(func() int {
		done := 0
		for id, l := range h.sim.Lights() {
			if l.State.On && fmt.Sprint(l.State.Bri) == id {
				done++
			}
		}
		return done
	}, 120*time.Second, 500*time.Millisecond).Should(Equal(n))
	t.Logf("%d lights converged in %s", n, time.Since(start).Round(time.Second))
	g.Expect(h.sim.Overloads()).To(BeZero(), "the bridge refused commands as overloaded")
	lightCmds := 0
	for _, c := range h.sim.Commands() {
		g.Expect(c.Path).To(HavePrefix("/lights/"), "distinct states: no group command")
		lightCmds++
	}
	// One per HueLight; a reconcile that read the cache just before its
	// own command landed may repeat it (harmless, and rare).
	g.Expect(lightCmds).To(BeNumerically(">=", n))
	g.Expect(lightCmds).To(BeNumerically("<=", n+2))

	// Fairness: among the first 40 commands every room has a good share.
	perRoom := map[int]int{}
	for _, c := range h.sim.Commands()[:40] {
		var id int
		_, err := fmt.Sscanf(strings.TrimPrefix(c.Path, "/lights/"), "%d", &id)
		g.Expect(err).NotTo(HaveOccurred())
		perRoom[(id-1)%rooms]++
	}
	for r := range rooms {
		g.Expect(perRoom[r]).To(BeNumerically(">=", 5), "room-%d got %d of the first 40 commands (%v)", r, perRoom[r], perRoom)
	}
}

// TestHueSameStateUsesGroupCommands: 60 HueLights, every bulb of the bridge,
// applied at once wanting one state, then all dimmed at once: group commands
// do most of the work (light by light would take 6 s each time), the bridge
// is never overloaded, and no temporary group is left on it. On CLIP v2
// group 0 is bridge_home's grouped_light and temporary groups are v1 groups
// over the same HTTPS connection; the budget is the same. It does not
// depend on how fast the reconciles follow the patches: the session learns
// of the 60 spec changes from the informer and holds its light line while
// they arrive (gathering, providers/hue/tempscenes.go); before that, on a
// loaded machine the line drained light by light as the reconciles
// trickled in (up to 40 light commands).
func TestHueSameStateUsesGroupCommands(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		const n = 60
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("bulb-%02d", i)
		}
		h := newHueEnvAPI(t, api, "grouped", true, names...)
		g := NewWithT(t)
		ctx := context.Background()
		g.Expect(h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hall"}})).To(Or(Succeed(), WithTransform(apierrors.IsAlreadyExists, BeTrue())))
		for _, name := range names {
			l := h.newLight("hall", name, name)
			l.Spec.Brightness = ptr.To[int32](200)
			h.create(l)
		}
		allAt := func(bri int) func() int {
			return func() int {
				done := 0
				for _, l := range h.sim.Lights() {
					if l.State.On && l.State.Bri == bri {
						done++
					}
				}
				return done
			}
		}
		g.Eventually(allAt(200), 60*time.Second, 200*time.Millisecond).Should(Equal(n))
		for _, name := range names {
			h.eventuallyLightReady("hall", name, "True/Available")
		}

		// All dimmed at once, as by one kubectl apply.
		h.sim.ResetCommands()
		errs := make(chan error, n)
		for _, name := range names {
			go func() {
				l := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "hall", Name: name}}
				errs <- h.c.Patch(ctx, l, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"brightness":50}}`)))
			}()
		}
		for range names {
			g.Expect(<-errs).To(Succeed())
		}
		g.Eventually(allAt(50), 60*time.Second, 200*time.Millisecond).Should(Equal(n))
		for _, name := range names {
			h.eventuallyLightReady("hall", name, "True/Available")
		}
		lights, groups := 0, 0
		for _, c := range h.sim.Commands() {
			if strings.HasPrefix(c.Path, "/groups") || strings.Contains(c.Path, "/grouped_light/") {
				groups++
			} else {
				lights++
			}
		}
		t.Logf("dimming %d lights: %d group and %d light commands", n, groups, lights)
		g.Expect(groups).To(BeNumerically(">=", 1))
		g.Expect(lights).To(BeNumerically("<", n/2), "most lights were set by group commands")
		g.Expect(h.sim.Overloads()+h.sim.TooManyRequests()).To(BeZero(), "the bridge's budget is kept on either API")
		g.Eventually(h.sim.Groups, 10*time.Second, 200*time.Millisecond).Should(BeEmpty(), "temporary groups left on the bridge")
	})
}

// TestHueRefusedCommandsReachTheConditions: an overloaded bridge refuses
// every light command (503, error 901). HueLights applied at once are mostly
// queued, not waiting for their command; each still learns of the refusal
// (a BridgeBusy warning on it, its conditions), and all converge once the
// bridge takes commands again.
func TestHueRefusedCommandsReachTheConditions(t *testing.T) {
	const n = 5
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%d", i)
	}
	// The refusals of light commands are under test: no temporary scene.
	h := newHueEnvWithBridge(t, "refusing", true, huesim.Options{Lights: names}, withoutTemporaryScenes)
	g := NewWithT(t)
	ctx := context.Background()
	h.sim.SetRate(1e-6, 0) // no token: every light command is refused
	for i, name := range names {
		l := h.newLight("entrance", name, name)
		l.Spec.Brightness = ptr.To(int32(10 + i)) // distinct: light commands only
		h.create(l)
	}
	for _, name := range names {
		g.Eventually(func(g Gomega) []string {
			var events eventsv1.EventList
			g.Expect(h.c.List(ctx, &events, client.InNamespace("entrance"))).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				if e.Regarding.Name == name {
					reasons = append(reasons, e.Reason)
				}
			}
			return reasons
		}, hueTimeout, huePoll).Should(ContainElement(hue.ReasonBridgeBusy), "HueLight %s told of the refusal", name)
	}
	g.Expect(h.sim.Overloads()).To(BeNumerically(">=", n))

	h.sim.SetRate(10, 10)
	for _, name := range names {
		h.eventuallyLightReady("entrance", name, "True/Available")
	}
}

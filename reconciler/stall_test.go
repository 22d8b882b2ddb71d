package reconciler

import (
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// TestStallBreakerStopsAWriteThatDoesNotStick: the backend accepts the
// update and never shows it. The same write goes out StallAfter (3) times
// for the generation, then both conditions say Stalled, naming the
// difference, and nothing more is sent; a change from outside or a spec
// change sends again.
func TestStallBreakerStopsAWriteThatDoesNotStick(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("stall", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	waitReady(t, "stall")
	widgets.mode("stall", true, "", [2]string{})
	t.Cleanup(func() { widgets.mode("stall", false, "", [2]string{}) })

	update(t, "stall", func(w *testv1alpha1.Widget) { w.Spec.Size = 7 })
	g.Eventually(func(g Gomega) {
		w := fetch(g, "stall")
		for _, c := range []string{commonv1alpha1.Synced, commonv1alpha1.Ready} {
			g.Expect(condition(w, c).Reason).To(Equal(providers.ReasonStalled))
			g.Expect(condition(w, c).Status).To(Equal(metav1.ConditionFalse))
		}
		g.Expect(condition(w, commonv1alpha1.Synced).Message).To(ContainSubstring("size 1 -> 7"))
		g.Expect(condition(w, commonv1alpha1.Synced).Message).To(ContainSubstring("3 times"))
	}, timeout, poll).Should(Succeed())
	g.Expect(widgets.updates("stall")).To(HaveLen(3))
	// A 1 s poll interval observes several times meanwhile; none writes.
	observes := widgets.count("stall", "Observe")
	g.Consistently(func() int { return len(widgets.updates("stall")) }, 4*time.Second, 200*time.Millisecond).Should(Equal(3))
	g.Expect(widgets.count("stall", "Observe")).To(BeNumerically(">", observes), "still observed while stalled")
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "stall") }, timeout, poll).Should(ContainElement(providers.ReasonStalled))

	// Changed from outside: the difference reads differently, so it is
	// sent again (and stalls again after three).
	widgets.set("stall", testv1alpha1.WidgetSpec{Size: 2, Color: "blue"})
	g.Eventually(func() int { return len(widgets.updates("stall")) }, timeout, poll).Should(Equal(6))
	g.Consistently(func() int { return len(widgets.updates("stall")) }, 3*time.Second, 200*time.Millisecond).Should(Equal(6))

	// A spec change starts over; a backend that takes it settles.
	widgets.mode("stall", false, "", [2]string{})
	update(t, "stall", func(w *testv1alpha1.Widget) { w.Spec.Size = 8 })
	w := waitReady(t, "stall")
	g.Expect(condition(w, commonv1alpha1.Synced).Reason).To(Equal(ReasonSuccess))
}

// TestWaitWritesNothing: an observation that says wait makes no write,
// whatever differs, and says why in Ready while Synced stays True.
func TestWaitWritesNothing(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("waiting", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	waitReady(t, "waiting")
	widgets.mode("waiting", false, "HeldElsewhere", [2]string{})
	t.Cleanup(func() { widgets.mode("waiting", false, "", [2]string{}) })

	update(t, "waiting", func(w *testv1alpha1.Widget) { w.Spec.Size = 5 })
	g.Eventually(func(g Gomega) {
		w := fetch(g, "waiting")
		g.Expect(condition(w, commonv1alpha1.Ready).Reason).To(Equal("HeldElsewhere"))
		g.Expect(condition(w, commonv1alpha1.Ready).Status).To(Equal(metav1.ConditionFalse))
		g.Expect(condition(w, commonv1alpha1.Synced).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, poll).Should(Succeed())
	g.Consistently(func() int { return len(widgets.updates("waiting")) }, 3*time.Second, 200*time.Millisecond).Should(BeZero())

	widgets.mode("waiting", false, "", [2]string{})
	waitReady(t, "waiting")
	g.Expect(widgets.updates("waiting")).To(HaveLen(1))
}

// TestNoteOnAMatchIsReadyWithItsReasonAndOneEvent: an available match with
// a note is Ready=True with the note's reason and message, and one Warning
// event, however often it is observed.
func TestNoteOnAMatchIsReadyWithItsReasonAndOneEvent(t *testing.T) {
	g := NewWithT(t)
	widgets.mode("noted", false, "", [2]string{"BeyondReach", "size 9 shows as 8"})
	create(t, newWidget("noted", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	g.Eventually(func(g Gomega) {
		ready := condition(fetch(g, "noted"), commonv1alpha1.Ready)
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.Reason).To(Equal("BeyondReach"))
		g.Expect(ready.Message).To(Equal("size 9 shows as 8"))
	}, timeout, poll).Should(Succeed())
	count := func(g Gomega) int {
		n := 0
		for _, r := range eventReasons(g, "noted") {
			if r == "BeyondReach" {
				n++
			}
		}
		return n
	}
	g.Eventually(count, timeout, poll).Should(Equal(1))
	g.Consistently(count, 3*time.Second, 200*time.Millisecond).Should(Equal(1))
}

// TestConnectErrorEndsThePassBeforeObserve: the connect stage runs first in
// every pass, and its error ends the pass like any other, with its reason.
func TestConnectErrorEndsThePassBeforeObserve(t *testing.T) {
	g := NewWithT(t)
	widgets.fail("noconnect", "Connect", providers.RetryAfter(time.Second, "EndpointGone", errors.New("no endpoint")))
	create(t, newWidget("noconnect", 1, nil))
	g.Eventually(func(g Gomega) string {
		return condition(fetch(g, "noconnect"), commonv1alpha1.Synced).Reason
	}, timeout, poll).Should(Equal("EndpointGone"))
	g.Eventually(func() int { return widgets.connectCount("noconnect") }, timeout, poll).Should(BeNumerically(">=", 2))
	g.Expect(widgets.count("noconnect", "")).To(BeZero(), "no Observe or Create without a connection")

	widgets.fail("noconnect", "Connect", nil)
	waitReady(t, "noconnect")
}

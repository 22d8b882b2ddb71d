package reconciler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

const (
	timeout = 20 * time.Second
	poll    = 50 * time.Millisecond
)

func newWidget(name string, size int32, annotations map[string]string) *testv1alpha1.Widget {
	return &testv1alpha1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
		Spec:       testv1alpha1.WidgetSpec{Size: size, Color: "blue"},
	}
}

func create(t *testing.T, w *testv1alpha1.Widget) {
	t.Helper()
	NewWithT(t).Expect(env.Client.Create(context.Background(), w)).To(Succeed())
	t.Cleanup(func() {
		// Let go of whatever the test left behind without leaking finalizers.
		widgets.fail(w.Name, "Delete", nil)
		_ = env.Client.Delete(context.Background(), w)
	})
}

// fetch returns the widget as the API server has it now.
func fetch(g Gomega, name string) *testv1alpha1.Widget {
	w := &testv1alpha1.Widget{}
	g.Expect(env.Client.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, w)).To(Succeed())
	return w
}

func condition(w *testv1alpha1.Widget, conditionType string) metav1.Condition {
	c := meta.FindStatusCondition(w.Status.Conditions, conditionType)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

// update changes the widget's spec, retrying on conflicts with the controller.
func update(t *testing.T, name string, change func(*testv1alpha1.Widget)) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		w := fetch(g, name)
		change(w)
		g.Expect(env.Client.Update(context.Background(), w)).To(Succeed())
	}, timeout, poll).Should(Succeed())
}

func waitReady(t *testing.T, name string) *testv1alpha1.Widget {
	t.Helper()
	var w *testv1alpha1.Widget
	NewWithT(t).Eventually(func(g Gomega) {
		w = fetch(g, name)
		ready := condition(w, commonv1alpha1.Ready)
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.ObservedGeneration).To(Equal(w.Generation))
	}, timeout, poll).Should(Succeed())
	return w
}

func eventReasons(g Gomega, name string) []string {
	list := &eventsv1.EventList{}
	g.Expect(env.Client.List(context.Background(), list, client.InNamespace("default"))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

func TestCreateAddsFinalizerCreatesExternallyAndBecomesReady(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("create", 3, nil))

	w := waitReady(t, "create")
	g.Expect(controllerutil.ContainsFinalizer(w, Finalizer)).To(BeTrue())
	g.Expect(w.Status.ObservedGeneration).To(Equal(w.Generation))
	g.Expect(condition(w, commonv1alpha1.Synced).Status).To(Equal(metav1.ConditionTrue))
	ext, ok := widgets.get("create")
	g.Expect(ok).To(BeTrue())
	g.Expect(ext.Size).To(Equal(int32(3)))
	g.Expect(widgets.count("create", "Create")).To(Equal(1))
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "create") }, timeout, poll).Should(ContainElement(ReasonCreated))
}

func TestSpecChangeCallsUpdateWithTheDifference(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("change", 1, nil))
	waitReady(t, "change")

	update(t, "change", func(w *testv1alpha1.Widget) { w.Spec.Size = 7 })

	w := waitReady(t, "change")
	g.Expect(w.Status.ObservedGeneration).To(Equal(int64(2)))
	g.Expect(widgets.updates("change")).To(Equal([]widgetDiff{{Size: &[2]int32{1, 7}}}))
	ext, _ := widgets.get("change")
	g.Expect(ext.Size).To(Equal(int32(7)))
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "change") }, timeout, poll).Should(ContainElement(ReasonUpdated))
}

func TestDriftIsCorrectedAtTheNextResync(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("drift", 2, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	waitReady(t, "drift")

	widgets.set("drift", testv1alpha1.WidgetSpec{Size: 99, Color: "red"}) // behind the operator's back

	g.Eventually(func() testv1alpha1.WidgetSpec {
		s, _ := widgets.get("drift")
		return s
	}, timeout, poll).Should(Equal(testv1alpha1.WidgetSpec{Size: 2, Color: "blue"}))
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "drift") }, timeout, poll).Should(ContainElement(ReasonDriftCorrected))
	g.Expect(testutil.ToFloat64(driftCorrections.WithLabelValues("widget"))).To(BeNumerically(">=", 1))
	g.Expect(testutil.ToFloat64(providerCalls.WithLabelValues("widget", "Update", "ok"))).To(BeNumerically(">=", 1))
}

func TestRetryAfterRequeuesAtTheHintedDelayWithTheReason(t *testing.T) {
	g := NewWithT(t)
	const hint = 3 * time.Second
	widgets.fail("retry", "Observe", providers.RetryAfter(hint, "Throttled", errors.New("slow down")))
	create(t, newWidget("retry", 1, nil))

	g.Eventually(func(g Gomega) {
		synced := condition(fetch(g, "retry"), commonv1alpha1.Synced)
		g.Expect(synced.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(synced.Reason).To(Equal("Throttled"))
		g.Expect(synced.Message).To(ContainSubstring("slow down"))
	}, timeout, poll).Should(Succeed())
	g.Eventually(func() int { return widgets.count("retry", "Observe") }, timeout, poll).Should(BeNumerically(">=", 2))

	times := widgets.callTimes("retry", "Observe")
	g.Expect(times[1].Sub(times[0])).To(BeNumerically(">=", hint), "the retry came before the hinted delay")
	g.Expect(testutil.ToFloat64(retries.WithLabelValues("widget", "Throttled"))).To(BeNumerically(">=", 1))

	widgets.fail("retry", "Observe", nil)
	waitReady(t, "retry")
}

// A pass the provider puts off with a quiet wait (its shared budget is spent) is not a
// failure: the conditions stay as they were, no warning is recorded, no
// backoff grows, and the pass runs again after the provider's delay.
func TestQuietPassKeepsConditionsAndRunsAgainAtItsTurn(t *testing.T) {
	g := NewWithT(t)
	const turn = 2 * time.Second
	create(t, newWidget("deferred", 1, nil))
	waitReady(t, "deferred")
	before := testutil.ToFloat64(deferrals.WithLabelValues("widget", "AccountBudget"))

	widgets.fail("deferred", "Observe", providers.Defer(turn, "AccountBudget"))
	from := widgets.count("deferred", "Observe")
	update(t, "deferred", func(w *testv1alpha1.Widget) { w.Spec.Size = 2 })
	g.Eventually(func() int { return widgets.count("deferred", "Observe") - from }, timeout, poll).Should(BeNumerically(">=", 2))
	times := widgets.callTimes("deferred", "Observe")[from:]
	g.Expect(times[1].Sub(times[0])).To(BeNumerically(">=", turn), "the deferred pass ran before its turn")
	g.Expect(testutil.ToFloat64(deferrals.WithLabelValues("widget", "AccountBudget")) - before).To(BeNumerically(">=", 2))

	w := fetch(g, "deferred")
	g.Expect(condition(w, commonv1alpha1.Synced).Status).To(Equal(metav1.ConditionTrue), "a deferral is no failure")
	g.Expect(condition(w, commonv1alpha1.Ready).Status).To(Equal(metav1.ConditionTrue), "the external side was not seen to change")
	g.Expect(eventReasons(g, "deferred")).NotTo(ContainElement("ObserveFailed"))
	g.Expect(widgets.count("deferred", "Update")).To(BeZero(), "nothing is sent before the pass's turn")

	widgets.fail("deferred", "Observe", nil)
	g.Eventually(func() int { return widgets.count("deferred", "Update") }, timeout, poll).Should(Equal(1))
	waitReady(t, "deferred")
}

func TestTerminalErrorStopsCallsUntilTheSpecChanges(t *testing.T) {
	g := NewWithT(t)
	widgets.fail("terminal", "Create", providers.Terminalf("InvalidSpec", "size 5 is not allowed"))
	create(t, newWidget("terminal", 5, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))

	g.Eventually(func(g Gomega) {
		synced := condition(fetch(g, "terminal"), commonv1alpha1.Synced)
		g.Expect(synced.Reason).To(Equal("InvalidSpec"))
		g.Expect(synced.Message).To(ContainSubstring("size 5 is not allowed"))
	}, timeout, poll).Should(Succeed())
	creates, looks := widgets.count("terminal", "Create"), widgets.count("terminal", "Observe")
	// A 1 s poll interval would have created several times in 4 s; it
	// only reads, to see whether what failed is done after all (recheck).
	g.Consistently(func() int { return widgets.count("terminal", "Create") }, 4*time.Second, 200*time.Millisecond).Should(Equal(creates))
	g.Expect(widgets.count("terminal", "Observe")).To(BeNumerically(">", looks), "the poll interval's reads go on")
	g.Expect(condition(fetch(g, "terminal"), commonv1alpha1.Stalled).Reason).To(Equal("InvalidSpec"), "a read that does not match leaves it stalled")
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "terminal") }, timeout, poll).Should(ContainElement("InvalidSpec"))

	widgets.fail("terminal", "Create", nil)
	update(t, "terminal", func(w *testv1alpha1.Widget) { w.Spec.Size = 4 })
	waitReady(t, "terminal")
	g.Expect(widgets.count("terminal", "Create")).To(Equal(2))
}

// A terminal failure never sticks on an object whose external side matches
// its spec: AWS refused a change as already made (a late read planned it
// again), and the next read shows it done. Nothing more is written, Ready
// comes back at the same generation, Stalled goes, with a Recovered event.
func TestTerminalFailureEndsWhenAReadShowsTheSpecMet(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("recovers", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	waitReady(t, "recovers")
	widgets.fail("recovers", "Update", providers.Terminalf("InvalidSpec", "the requested value equals the current value"))
	update(t, "recovers", func(w *testv1alpha1.Widget) { w.Spec.Size = 2 })
	g.Eventually(func(g Gomega) {
		g.Expect(condition(fetch(g, "recovers"), commonv1alpha1.Stalled).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, poll).Should(Succeed())
	updates := widgets.count("recovers", "Update")

	// AWS had applied it: the outside shows the spec.
	widgets.set("recovers", testv1alpha1.WidgetSpec{Size: 2, Color: "blue"})
	g.Eventually(func(g Gomega) {
		w := fetch(g, "recovers")
		ready := condition(w, commonv1alpha1.Ready)
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.ObservedGeneration).To(Equal(w.Generation))
		g.Expect(condition(w, commonv1alpha1.Stalled).Status).To(BeEmpty())
	}, timeout, poll).Should(Succeed())
	g.Eventually(func(g Gomega) []string { return eventReasons(g, "recovers") }, timeout, poll).Should(ContainElement(ReasonRecovered))
	g.Expect(widgets.count("recovers", "Update")).To(Equal(updates), "nothing was sent again")
}

func TestDeletionDeletesExternallyThenRemovesTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	w := newWidget("delete", 1, nil)
	create(t, w)
	waitReady(t, "delete")

	g.Expect(env.Client.Delete(context.Background(), w)).To(Succeed())

	g.Eventually(func() bool {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(w), &testv1alpha1.Widget{})
		return apierrors.IsNotFound(err)
	}, timeout, poll).Should(BeTrue())
	_, exists := widgets.get("delete")
	g.Expect(exists).To(BeFalse())
	g.Expect(widgets.count("delete", "Delete")).To(Equal(1))
}

func TestFailingDeleteKeepsTheFinalizerAndBacksOff(t *testing.T) {
	g := NewWithT(t)
	w := newWidget("stuck", 1, nil)
	create(t, w)
	waitReady(t, "stuck")
	widgets.fail("stuck", "Delete", errors.New("backend says no"))

	g.Expect(env.Client.Delete(context.Background(), w)).To(Succeed())

	g.Eventually(func(g Gomega) {
		stuck := fetch(g, "stuck")
		g.Expect(stuck.Finalizers).To(ContainElement(Finalizer))
		synced := condition(stuck, commonv1alpha1.Synced)
		g.Expect(synced.Reason).To(Equal("DeleteFailed"))
		g.Expect(synced.Message).To(ContainSubstring("backend says no"))
	}, timeout, poll).Should(Succeed())

	// Exponential backoff from 1 s: attempts at about 0, 1, 3, 7 s. A hot loop
	// would make hundreds of calls in this window.
	start := widgets.callTimes("stuck", "Delete")[0]
	g.Consistently(func() int { return widgets.count("stuck", "Delete") }, 6*time.Second, 200*time.Millisecond).
		Should(BeNumerically("<=", 4))
	times := widgets.callTimes("stuck", "Delete")
	g.Expect(len(times)).To(BeNumerically(">=", 2), "the delete was not retried")
	g.Expect(times[1].Sub(start)).To(BeNumerically(">=", 900*time.Millisecond))
	g.Expect(testutil.ToFloat64(currentBackoff.WithLabelValues("widget"))).To(BeNumerically(">=", 1),
		"the backoff gauge does not show the failing delete")

	widgets.fail("stuck", "Delete", nil)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(context.Background(), client.ObjectKeyFromObject(w), &testv1alpha1.Widget{}))
	}, 6*time.Minute, poll).Should(BeTrue())
	g.Expect(testutil.ToFloat64(currentBackoff.WithLabelValues("widget"))).To(BeZero(), "the gauge kept a finished backoff")
}

func TestPausedObjectMakesNoExternalCalls(t *testing.T) {
	g := NewWithT(t)
	paused := map[string]string{
		commonv1alpha1.AnnotationReconcile:    commonv1alpha1.ReconcilePaused,
		commonv1alpha1.AnnotationPollInterval: "1s",
	}
	w := newWidget("paused", 1, paused)
	create(t, w)

	g.Eventually(func(g Gomega) {
		synced := condition(fetch(g, "paused"), commonv1alpha1.Synced)
		g.Expect(synced.Reason).To(Equal(ReasonPaused))
		g.Expect(synced.Status).To(Equal(metav1.ConditionFalse))
	}, timeout, poll).Should(Succeed())
	g.Consistently(func() int { return widgets.count("paused", "") }, 3*time.Second, 200*time.Millisecond).Should(BeZero())
	// The adapter was told, so it can stop acting for the object between
	// reconciles (the Hue sender's group commands).
	g.Expect(widgets.pausedNotices("paused")).To(BeNumerically(">=", 1))

	// Unpausing resumes management.
	update(t, "paused", func(w *testv1alpha1.Widget) { delete(w.Annotations, commonv1alpha1.AnnotationReconcile) })
	waitReady(t, "paused")
	g.Expect(widgets.count("paused", "Create")).To(Equal(1))

	// Pausing again, then deleting, lets go without touching the external side.
	update(t, "paused", func(w *testv1alpha1.Widget) {
		w.Annotations[commonv1alpha1.AnnotationReconcile] = commonv1alpha1.ReconcilePaused
	})
	g.Eventually(func(g Gomega) string {
		return condition(fetch(g, "paused"), commonv1alpha1.Synced).Reason
	}, timeout, poll).Should(Equal(ReasonPaused))
	g.Expect(env.Client.Delete(context.Background(), w)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(context.Background(), client.ObjectKeyFromObject(w), &testv1alpha1.Widget{}))
	}, timeout, poll).Should(BeTrue())
	g.Expect(widgets.count("paused", "Delete")).To(BeZero())
	_, stillThere := widgets.get("paused")
	g.Expect(stillThere).To(BeTrue())
}

func TestStatusIsNotRewrittenWhenNothingChanged(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("quiet", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	w := waitReady(t, "quiet")
	version := w.ResourceVersion

	g.Eventually(func() int { return widgets.count("quiet", "Observe") }, timeout, poll).Should(BeNumerically(">=", 4))
	g.Expect(fetch(g, "quiet").ResourceVersion).To(Equal(version), "a resync with nothing new wrote the object")
}

// A write the provider queues for a moment (a quiet wait) writes no interim
// status: the status keeps saying the last generation it reported on until
// the pass that sees the write done reports Ready for the new one. Every
// status the API server stores is watched, so an interim write cannot hide
// between two looks.
func TestQuietWaitForAQueuedWriteWritesNoInterimStatus(t *testing.T) {
	g := NewWithT(t)
	create(t, newWidget("brief", 1, nil))
	waitReady(t, "brief")

	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := wc.Watch(ctx, &testv1alpha1.WidgetList{}, client.InNamespace("default"),
		client.MatchingFields{"metadata.name": "brief"})
	g.Expect(err).NotTo(HaveOccurred())
	defer watch.Stop()

	from := widgets.count("brief", "Observe")
	widgets.queue("brief", 2) // handed over, then two brief looks
	update(t, "brief", func(w *testv1alpha1.Widget) { w.Spec.Size = 2 })
	waitReady(t, "brief")
	g.Expect(widgets.count("brief", "Observe")-from).To(BeNumerically(">=", 4), "the looks after the brief waits ran")

	var seen []string
	for done := false; !done; {
		select {
		case ev := <-watch.ResultChan():
			w, ok := ev.Object.(*testv1alpha1.Widget)
			if !ok {
				continue
			}
			ready := condition(w, commonv1alpha1.Ready)
			seen = append(seen, fmt.Sprintf("generation %d, observed %d, Ready %s %s", w.Generation, w.Status.ObservedGeneration, ready.Status, ready.Reason))
			if w.Status.ObservedGeneration == 2 {
				g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "an interim status was written: %v", seen)
				done = true
			}
		case <-time.After(timeout):
			t.Fatalf("the watch never showed generation 2 reported on: %v", seen)
		}
	}
}

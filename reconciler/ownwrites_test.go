package reconciler

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
)

func TestOwnWritesBehind(t *testing.T) {
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "w"}}
	now := time.Now()
	cases := []struct {
		name          string
		before, after string
		cached        string
		at            time.Time
		want          bool
	}{
		{"the copy the write replaced", "10", "11", "10", now, true},
		{"the copy with the write", "10", "11", "11", now, false},
		{"a later copy", "10", "11", "12", now, false},
		{"the replaced copy, once the wait ran out", "10", "11", "10", now.Add(cacheLagLimit), false},
		{"a write the API server found empty replaced nothing", "10", "10", "10", now, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newOwnWrites()
			w.wrote(req, c.before, c.after, now)
			if got := w.behind(req, c.cached, c.at); got != c.want {
				t.Errorf("behind = %v, want %v", got, c.want)
			}
		})
	}
	// Two writes in one pass (the finalizer, then the status): a copy
	// before either is behind, until the cache shows the last.
	w := newOwnWrites()
	w.wrote(req, "10", "11", now)
	w.wrote(req, "11", "12", now)
	if !w.behind(req, "10", now) || !w.behind(req, "11", now) || w.behind(req, "12", now) || w.behind(req, "10", now) {
		t.Error("two writes: want 10 and 11 behind until 12 is seen, then nothing")
	}
}

// TestAPassWokenRightAfterItsWriteReportsTheOutcome: a backend that wakes
// the object as soon as a write is done (a bridge's sender, once the bridge
// accepted a command) starts the next pass before the manager's cache shows
// the status that write recorded (Ready=False, Updating). That pass must
// still report what it observes: Ready=True now, not at the next resync
// (an hour here).
func TestAPassWokenRightAfterItsWriteReportsTheOutcome(t *testing.T) {
	g := NewWithT(t)
	widgets.wakeOnWrite("pushed", true)
	t.Cleanup(func() { widgets.wakeOnWrite("pushed", false) })
	create(t, newWidget("pushed", 2, nil))
	waitReady(t, "pushed")

	for i := range 3 { // the race is the cache's: try it a few times
		widgets.set("pushed", testv1alpha1.WidgetSpec{Size: int32(90 + i), Color: "red"}) // by hand
		widgets.wake(fetch(g, "pushed"))                                                  // the backend's push
		g.Eventually(func() int32 { s, _ := widgets.get("pushed"); return s.Size }, timeout, poll).Should(Equal(int32(2)))
		g.Eventually(func(g Gomega) metav1.Condition {
			return condition(fetch(g, "pushed"), commonv1alpha1.Ready)
		}, 5*time.Second, poll).Should(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", ReasonAvailable)),
			"correction %d: Ready does not report the corrected widget", i+1)
	}
}

// TestADeletionIsAnnouncedOnceInTheProvidersWords: a backend that wakes
// the object once its delete is done (a bridge's sender, after switching a
// bulb off) starts a pass before the cache shows the finalizer gone; that
// pass must not delete and announce the deletion again. The event says
// what the provider did (providers.DeleteDescriber).
func TestADeletionIsAnnouncedOnceInTheProvidersWords(t *testing.T) {
	g := NewWithT(t)
	widgets.wakeOnWrite("gone-once", true)
	t.Cleanup(func() { widgets.wakeOnWrite("gone-once", false) })
	w := newWidget("gone-once", 4, nil)
	create(t, w)
	waitReady(t, "gone-once")
	g.Expect(env.Client.Delete(context.Background(), w)).To(Succeed())
	g.Eventually(func() error {
		return env.Client.Get(context.Background(), client.ObjectKeyFromObject(w), &testv1alpha1.Widget{})
	}, timeout, poll).Should(Satisfy(apierrors.IsNotFound))
	deleted := func(g Gomega) []string {
		list := &eventsv1.EventList{}
		g.Expect(env.Client.List(context.Background(), list, client.InNamespace("default"))).To(Succeed())
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.Name == "gone-once" && e.Reason == ReasonDeleted {
				for range occurrencesOf(&e) {
					notes = append(notes, e.Note)
				}
			}
		}
		return notes
	}
	g.Eventually(deleted, timeout, poll).Should(Equal([]string{"removed widget gone-once of size 4"}))
	g.Consistently(deleted, 2*time.Second, 200*time.Millisecond).Should(HaveLen(1), "the deletion was announced twice")
	g.Expect(widgets.count("gone-once", "Delete")).To(Equal(1), "deleted twice")
}

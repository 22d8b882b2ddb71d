package reconciler

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
)

func TestAnnouncedNotes(t *testing.T) {
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "w"}}
	type pass struct {
		generation      int64
		reason, message string
		changed         bool
		want            bool
	}
	cases := []struct {
		name   string
		passes []pass
	}{
		{"a new note", []pass{{1, "Limited", "dims only", true, true}}},
		{"the same note again after a write at the same generation", []pass{
			{1, "Limited", "dims only", true, true}, {1, "Limited", "dims only", true, false}}},
		{"the same note at a new generation", []pass{
			{1, "Limited", "dims only", true, true}, {2, "Limited", "dims only", true, true}}},
		{"another note at the same generation", []pass{
			{1, "Limited", "dims only", true, true}, {1, "Limited", "no colour", true, true}}},
		{"a note the status already showed (a restart)", []pass{
			{1, "Limited", "dims only", false, false}, {1, "Limited", "dims only", true, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAnnouncedNotes()
			for i, p := range c.passes {
				if got := a.announce(req, p.generation, p.reason, p.message, p.changed); got != p.want {
					t.Errorf("pass %d: announce = %v, want %v", i+1, got, p.want)
				}
			}
		})
	}
}

// occurrences counts the events of one reason for a widget, each repeat
// of a series included.
func occurrences(g Gomega, name, reason string) int {
	list := &eventsv1.EventList{}
	g.Expect(env.Client.List(context.Background(), list, client.InNamespace("default"))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			n += occurrencesOf(&e)
		}
	}
	return n
}

// occurrencesOf is how many times an event happened: once, or its series'
// count.
func occurrencesOf(e *eventsv1.Event) int {
	if e.Series != nil {
		return int(e.Series.Count)
	}
	return 1
}

// TestANoteIsAnnouncedOncePerGeneration: a match with a note (a bulb that
// shows what it can) is announced by one Warning event per generation.
// Drift corrected at that generation takes Ready through Updating and back
// to the note: no second event. A new generation with the note: one more.
func TestANoteIsAnnouncedOncePerGeneration(t *testing.T) {
	g := NewWithT(t)
	widgets.mode("noted-once", false, "", [2]string{"BeyondReach", "size 9 shows as 8"})
	t.Cleanup(func() { widgets.mode("noted-once", false, "", [2]string{}) })
	create(t, newWidget("noted-once", 1, map[string]string{commonv1alpha1.AnnotationPollInterval: "1s"}))
	noted := func(g Gomega) {
		w := fetch(g, "noted-once")
		ready := condition(w, commonv1alpha1.Ready)
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.Reason).To(Equal("BeyondReach"))
		g.Expect(ready.ObservedGeneration).To(Equal(w.Generation))
	}
	g.Eventually(noted, timeout, poll).Should(Succeed())
	count := func(g Gomega) int { return occurrences(g, "noted-once", "BeyondReach") }
	g.Eventually(count, timeout, poll).Should(Equal(1))

	widgets.set("noted-once", testv1alpha1.WidgetSpec{Size: 5, Color: "blue"}) // by hand
	g.Eventually(func(g Gomega) int { return occurrences(g, "noted-once", ReasonDriftCorrected) }, timeout, poll).Should(Equal(1))
	g.Eventually(noted, timeout, poll).Should(Succeed())
	g.Consistently(count, 3*time.Second, 200*time.Millisecond).Should(Equal(1), "the note was announced again after a correction")

	update(t, "noted-once", func(w *testv1alpha1.Widget) { w.Spec.Size = 2 })
	g.Eventually(count, timeout, poll).Should(Equal(2), "a new generation's note is not announced")
}

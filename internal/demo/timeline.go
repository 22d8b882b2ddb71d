package demo

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
)

// timelineLength is how many entries the page keeps: a talk's worth.
const timelineLength = 60

// entry is one line of the page's timeline.
type entry struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Source says who acted: "tether" (an event of Tether's objects),
	// "hand" (a bulb changed as with the Hue app), "plan" (a table's
	// pending plan) or "putBack" (Tether undid a hand change).
	Source string `json:"source"`
	Type   string `json:"type"` // Normal or Warning
	Reason string `json:"reason,omitempty"`
	Object string `json:"object,omitempty"`
	Text   string `json:"text"`
	// TookMS is, for a put-back, the time from the hand change to the
	// bulb's correction.
	TookMS int64 `json:"tookMs,omitempty"`
}

// timeline is the page's history, newest last.
type timeline struct {
	mu      sync.Mutex
	seq     int
	entries []entry
	changed *notifier
}

func newTimeline(changed *notifier) *timeline { return &timeline{changed: changed} }

func (t *timeline) add(e entry) {
	t.mu.Lock()
	t.seq++
	e.Seq = t.seq
	if e.Type == "" {
		e.Type = corev1.EventTypeNormal
	}
	t.entries = append(t.entries, e)
	if len(t.entries) > timelineLength {
		t.entries = t.entries[len(t.entries)-timelineLength:]
	}
	t.mu.Unlock()
	t.changed.notify()
}

// list returns the entries in time order. Events reach the informer a
// little after they happen, so an entry may belong before one added
// earlier.
func (t *timeline) list() []entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]entry{}, t.entries...)
	sortEntries(out)
	return out
}

func sortEntries(es []entry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Time.Before(es[j].Time) })
}

// eventEntry words an event of a Tether object. A repeat of a series
// keeps the first occurrence's note (the recorder counts repeats instead of
// recording them), so it says only that it happened again.
func eventEntry(ev *eventsv1.Event, count int32, subject string) entry {
	e := entry{Time: eventTime(ev), Source: "tether", Type: ev.Type, Reason: ev.Reason,
		Object: objectRef(ev.Regarding.Kind, ev.Regarding.Namespace, ev.Regarding.Name)}
	if count > 1 {
		e.Text = fmt.Sprintf("%s: %s again (%d times)", subject, ev.Reason, count)
		return e
	}
	e.Text = subject + ": " + ev.Note
	return e
}

// sentPrefix starts the Ready message of an object whose change was just
// sent (controllers' markWritten): "sent: brightness: 254 -> 40".
const sentPrefix = "sent: "

// writeEntry words a write the controller made, as the object's status
// records it: "hallway: brightness 254 -> 40". A write at a generation
// that was already Ready undid a change made outside (DriftCorrected), as
// the reconciler itself decides.
func writeEntry(was, now managed, subject string) (entry, bool) {
	before := meta.FindStatusCondition(was.Managed().Conditions, commonv1alpha1.Ready)
	after := meta.FindStatusCondition(now.Managed().Conditions, commonv1alpha1.Ready)
	if after == nil || after.Reason != controllers.ReasonUpdating || !strings.HasPrefix(after.Message, sentPrefix) {
		return entry{}, false
	}
	if before != nil && before.Reason == after.Reason && before.Message == after.Message {
		return entry{}, false
	}
	e := entry{Time: time.Now(), Source: "tether", Reason: controllers.ReasonUpdated,
		Object: objectRef(kindOf(now), now.GetNamespace(), now.GetName())}
	change := strings.ReplaceAll(strings.TrimPrefix(after.Message, sentPrefix), ": ", " ")
	if before != nil && before.Status == metav1.ConditionTrue && before.ObservedGeneration == now.GetGeneration() {
		e.Reason = controllers.ReasonDriftCorrected
		change = "put back " + change
	}
	e.Text = subject + ": " + change
	return e, true
}

// kindOf names an object's kind (the informers' objects carry no
// TypeMeta).
func kindOf(obj client.Object) string {
	switch obj.(type) {
	case *huev1alpha1.HueLight:
		return "HueLight"
	case *awsv1alpha1.DynamoDBTable:
		return "DynamoDBTable"
	case *huev1alpha1.HueBridge:
		return "HueBridge"
	case *huev1alpha1.HueGroup:
		return "HueGroup"
	case *huev1alpha1.HueScene:
		return "HueScene"
	}
	return obj.GetObjectKind().GroupVersionKind().Kind
}

// planEntry tells how a table's pending plan moved: steps left, or done.
func planEntry(t *awsv1alpha1.DynamoDBTable) entry {
	e := entry{Time: time.Now(), Source: "plan", Reason: "Plan",
		Object: objectRef("DynamoDBTable", t.Namespace, t.Name)}
	plan := t.Status.PendingPlan
	switch {
	case len(plan) == 0:
		e.Text = fmt.Sprintf("%s: plan done, nothing pending", t.ResolvedTableName())
	default:
		e.Text = fmt.Sprintf("%s: plan, %d step(s) to go: %s", t.ResolvedTableName(), len(plan), strings.Join(plan, " → "))
	}
	return e
}

// notifier wakes the page's streams after a change; wake-ups merge, so a
// burst of changes costs one snapshot per stream.
type notifier struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func newNotifier() *notifier { return &notifier{subs: map[chan struct{}]struct{}{}} }

func (n *notifier) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	n.mu.Lock()
	n.subs[ch] = struct{}{}
	n.mu.Unlock()
	return ch, func() {
		n.mu.Lock()
		delete(n.subs, ch)
		n.mu.Unlock()
	}
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

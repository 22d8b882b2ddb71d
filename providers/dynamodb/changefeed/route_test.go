package changefeed

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// lookQueue records when each look queued for one table runs, by the
// registry's fake clock, and whether it read the table afresh (the
// registry's Changed said so since the last look, which uses the word up,
// as Observe does). As the controller's queue (controller-runtime's
// priority queue, its default), it keeps only the earliest of the delayed
// adds of a table still waiting, and an add now takes the place of a
// delayed one. Each look runs at once.
type lookQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	clock *clocktesting.FakeClock
	// now is the clock's time, kept here: the fake clock runs timers
	// while it holds its lock, so Add cannot ask it.
	now     time.Time
	looks   []time.Time
	stale   []time.Time // the looks that did not read afresh
	changed bool
	due     time.Time // the delayed look waiting, if not zero
}

func newLookQueue(clock *clocktesting.FakeClock) *lookQueue {
	return &lookQueue{clock: clock, now: clock.Now()}
}

func (q *lookQueue) Add(reconcile.Request) {
	q.due = time.Time{}
	q.look(q.now)
}

func (q *lookQueue) look(at time.Time) {
	q.looks = append(q.looks, at)
	if !q.changed {
		q.stale = append(q.stale, at)
	}
	q.changed = false
}

func (q *lookQueue) AddAfter(_ reconcile.Request, d time.Duration) {
	if at := q.now.Add(d); q.due.IsZero() || at.Before(q.due) {
		q.due = at
	}
}

// lookTick is the fake time's resolution: a timer's look is recorded at
// the first tick at or after its time.
const lookTick = 10 * time.Millisecond

// step moves the clock on by d, tick by tick, running the delayed look
// that falls due and the registry's timers.
func (q *lookQueue) step(d time.Duration) {
	for ; d > 0; d -= lookTick {
		tick := min(d, lookTick)
		q.now = q.now.Add(tick)
		q.clock.Step(tick)
		if !q.due.IsZero() && !q.due.After(q.now) {
			q.look(q.due)
			q.due = time.Time{}
		}
	}
}

// Events about a change that is still going on arrive within seconds of
// it, so no queued look covers them; a flood of forged ones may carry any
// time. Looks that events queue for a table are spaced: a burst costs one
// look per lookSpacing, and events from the future count as now.
func TestEventDrivenLooksAreSpacedPerTable(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	table := []holder{{key: types.NamespacedName{Namespace: "team", Name: "orders"}, uid: "uid-1"}}
	for _, tc := range []struct {
		name string
		// at is an event's time, given the time it arrives.
		at       func(arrives time.Time) time.Time
		events   int
		every    time.Duration
		maxLooks int
	}{
		// 50 events over 3.5 s, each arriving as its change is made: at
		// once, then at most one look per 3 s (was one every 2 s or so
		// per table: about 10 in the measure of such a burst).
		{name: "a burst as it happens", at: func(a time.Time) time.Time { return a }, events: 50, every: 70 * time.Millisecond, maxLooks: 3},
		// 100 forged events dated an hour ahead, in one go: as if now.
		{name: "forged from the future", at: func(a time.Time) time.Time { return a.Add(time.Hour) }, events: 100, maxLooks: 2},
		// Events of changes made 5 s before they arrive: the first look
		// covers the rest.
		{name: "late events", at: func(a time.Time) time.Time { return a.Add(-5 * time.Second) }, events: 50, every: 70 * time.Millisecond, maxLooks: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clocktesting.NewFakeClock(start)
			q := newLookQueue(clock)
			r := NewRegistry(Options{Clock: clock, Changed: func(types.UID) { q.changed = true }})
			r.tables = q
			for range tc.events {
				r.wake(table, tc.at(clock.Now()))
				q.step(tc.every)
			}
			q.step(10 * time.Second) // the looks still to come
			if len(q.stale) > 0 {
				t.Errorf("looks at %v did not read the table afresh", q.stale)
			}
			if len(q.looks) > tc.maxLooks || len(q.looks) == 0 {
				t.Fatalf("%d looks queued (at %v), want 1 to %d", len(q.looks), q.looks, tc.maxLooks)
			}
			for i := 1; i < len(q.looks); i++ {
				if gap := q.looks[i].Sub(q.looks[i-1]); gap < lookSpacing {
					t.Errorf("looks %d and %d are %s apart, less than %s", i-1, i, gap, lookSpacing)
				}
			}
			if tc.every > 0 {
				last := tc.at(start.Add(time.Duration(tc.events-1) * tc.every))
				if q.looks[len(q.looks)-1].Before(last.Add(coverMargin)) {
					t.Errorf("the last look (%v) is not sure to see the burst's last change (%v)", q.looks[len(q.looks)-1], last)
				}
			}
		})
	}
}

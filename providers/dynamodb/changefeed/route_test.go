package changefeed

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// lookQueue records when each look queued for a table runs, by the
// registry's fake clock.
type lookQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	clock *clocktesting.FakeClock
	looks []time.Time
}

func (q *lookQueue) Add(reconcile.Request) { q.looks = append(q.looks, q.clock.Now()) }
func (q *lookQueue) AddAfter(_ reconcile.Request, d time.Duration) {
	q.looks = append(q.looks, q.clock.Now().Add(d))
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
			r := NewRegistry(Options{Clock: clock})
			q := &lookQueue{clock: clock}
			r.tables = q
			for range tc.events {
				r.wake(table, tc.at(clock.Now()))
				clock.Step(tc.every)
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
				if q.looks[len(q.looks)-1].Before(last) {
					t.Errorf("the last look (%v) does not see the burst's last change (%v)", q.looks[len(q.looks)-1], last)
				}
			}
		})
	}
}

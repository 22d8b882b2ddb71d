package access

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers"
)

// A pass starts only when its limiter can serve it within turnWait;
// otherwise it gets a turn at the end of its limiter's queue, one call
// apart from the turn before, and comes back then.
func TestNextTurn(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	const spacing = 40 * time.Millisecond // 25 calls/s
	for _, tc := range []struct {
		name     string
		backlog  time.Duration
		end      time.Time
		ticket   time.Time
		held     bool
		wantWait time.Duration
		wantEnd  time.Time
	}{
		{name: "idle limiter, empty queue: start", end: at(-time.Minute), wantEnd: at(-time.Minute)},
		{name: "short wait for the limiter: start and wait inside the pass", backlog: turnWait, end: at(-time.Minute), wantEnd: at(-time.Minute)},
		{name: "long wait for the limiter: deferred to when it has caught up", backlog: 5 * time.Second, end: at(-time.Minute),
			wantWait: 5 * time.Second, wantEnd: at(5*time.Second + spacing)},
		{name: "others waiting: behind them, even when the limiter is free", end: at(30 * time.Second),
			wantWait: 30 * time.Second, wantEnd: at(30*time.Second + spacing)},
		{name: "a queue shorter than turnWait does not defer", end: at(turnWait / 2), wantEnd: at(turnWait / 2)},
		{name: "queue longer than the limiter's backlog: the queue decides", backlog: 3 * time.Second, end: at(8 * time.Second),
			wantWait: 8 * time.Second, wantEnd: at(8*time.Second + spacing)},
		{name: "ticket holder come early (a spec change): back at its turn, queue unchanged", held: true, ticket: at(20 * time.Second),
			end: at(time.Minute), wantWait: 20 * time.Second, wantEnd: at(time.Minute)},
		{name: "ticket holder at its turn: starts though others wait behind it", held: true, ticket: at(0), backlog: turnWait / 2,
			end: at(time.Minute), wantEnd: at(time.Minute)},
		{name: "ticket holder late: starts", held: true, ticket: at(-time.Minute), end: at(time.Minute), wantEnd: at(time.Minute)},
		{name: "ticket holder at its turn, limiter behind: back to the end of the queue, one pass apart", held: true, ticket: at(0), backlog: 4 * time.Second,
			end: at(time.Minute), wantWait: time.Minute, wantEnd: at(time.Minute + spacing)},
		{name: "ticket holder behind a limiter busier than the queue: when the limiter has caught up", held: true, ticket: at(0), backlog: 4 * time.Second,
			end: at(2 * time.Second), wantWait: 4 * time.Second, wantEnd: at(4*time.Second + spacing)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := nextTurn(now, tc.backlog, tc.end, tc.ticket, tc.held, spacing)
			if got.wait != tc.wantWait || !got.end.Equal(tc.wantEnd) {
				t.Errorf("nextTurn = wait %s, end %s; want wait %s, end %s", got.wait, got.end.Sub(now), tc.wantWait, tc.wantEnd.Sub(now))
			}
		})
	}
}

// Through a real limiter: passes that start together reserve their first
// call's token, so the ones after the burst see the backlog and are
// deferred in turn, one call apart, without any call made; each deferred
// pass starts at its turn, and the token it reserved is its first call's.
func TestTakeTurnQueuesPassesBeyondTheLimiter(t *testing.T) {
	c := NewClients(ClientOptions{RequestsPerSecond: 10, Burst: 2}, nil)
	ep := &Endpoint{Account: "111111111111", Region: "us-east-1", budget: c.budgetLocked("111111111111", "us-east-1")}
	ctx, now := context.Background(), time.Now()
	var waits []time.Duration
	for i := range 7 {
		_, err := ep.budget.take(ctx, types.UID(rune('a'+i)), 1, now)
		d, deferred := providers.AsDeferred(err)
		switch {
		case err == nil:
			waits = append(waits, 0)
		case deferred && d.Reason == reasonAccountBudget:
			waits = append(waits, d.For)
		default:
			t.Fatalf("pass %d: %v", i, err)
		}
	}
	// Two tokens of burst, a third and a fourth within turnWait (0.1 s and
	// 0.2 s at 10/s), then a queue: the fifth waits for the limiter (0.3 s
	// of tokens ahead), the next ones 0.1 s (one call) apart.
	for i, w := range waits[:4] {
		if w != 0 {
			t.Errorf("pass %d deferred %s, want started", i, w)
		}
	}
	for i := 4; i < len(waits); i++ {
		if waits[i] <= turnWait {
			t.Errorf("pass %d deferred %s, want over %s", i, waits[i], turnWait)
		}
		if i > 4 {
			if gap := waits[i] - waits[i-1]; gap != 100*time.Millisecond {
				t.Errorf("turns of passes %d and %d are %s apart, want one call (0.1 s)", i-1, i, gap)
			}
		}
	}
	if got := len(ep.budget.tickets); got != 3 {
		t.Errorf("%d tickets held, want 3", got)
	}

	// The first deferred pass's turn comes: it starts, and its first call
	// goes out at its reserved time without taking another token.
	started, err := ep.budget.take(ctx, types.UID('a'+4), 1, now.Add(waits[4]))
	if err != nil {
		t.Fatalf("at its turn: %v", err)
	}
	if _, ok := takePrepaid(started, ep.budget); !ok {
		t.Error("the started pass carries no token for its first call")
	}
	if _, ok := takePrepaid(started, ep.budget); ok {
		t.Error("the reserved token was used twice")
	}
	if _, ok := takePrepaid(started, newBudget(rate.NewLimiter(1, 1))); ok {
		t.Error("the token was taken for another limiter's call")
	}
	c.DropDemand(types.UID('a' + 5))
	if got := len(ep.budget.tickets); got != 1 {
		t.Errorf("%d tickets held after one started and one was forgotten, want 1", got)
	}
}

// Turns are spaced by the calls passes really make per call expected:
// after passes expected to make one call made two each (creates the
// adapter did not foresee), a pass expected to make one call gets a turn
// two calls long.
func TestTurnsAreSpacedByTheCallsPassesMake(t *testing.T) {
	b := newBudget(rate.NewLimiter(10, 1))
	ctx, now := context.Background(), time.Now()
	for i := range passesMeasured + 1 {
		at := now.Add(time.Duration(i) * time.Second) // the limiter is idle at each
		started, err := b.take(ctx, types.UID(fmt.Sprint(i)), 1, at)
		if err != nil {
			t.Fatalf("pass %d: %v", i, err)
		}
		if _, ok := takePrepaid(started, b); !ok {
			t.Fatal("no token for the first call")
		}
		b.attempts.Add(2)
	}
	if b.perExpected != 2 {
		t.Fatalf("calls per call expected = %g, want 2", b.perExpected)
	}
	// Five passes at once: three start (the burst, then 0.1 s and 0.2 s of
	// backlog, within turnWait), the fourth is deferred, the fifth two
	// calls (0.2 s) behind it.
	at := now.Add(time.Hour)
	var waits []time.Duration
	for i := range 5 {
		_, err := b.take(ctx, types.UID(fmt.Sprint("x", i)), 1, at)
		d, _ := providers.AsDeferred(err)
		if d != nil {
			waits = append(waits, d.For)
		}
	}
	if len(waits) != 2 || waits[1]-waits[0] != 200*time.Millisecond {
		t.Errorf("deferrals %v, want two, 0.2 s apart", waits)
	}
}

// A turn is as long as the calls of the pass that holds it, not those of
// the passes that started lately: when the passes made what they were
// expected to, a pass expected to make one call is one call behind the
// turn before it and one expected to make two is two calls behind, whatever
// kind of pass started before.
func TestTurnsAreAsLongAsTheirPass(t *testing.T) {
	for _, tc := range []struct {
		name     string
		measured int // calls expected of, and made by, each measured pass
		calls    []int
		wantGaps []time.Duration
	}{
		{name: "after creates, passes of one call are one call apart", measured: 2, calls: []int{1, 1, 1},
			wantGaps: []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}},
		{name: "after steady passes, creates are two calls apart", measured: 1, calls: []int{2, 2, 2},
			wantGaps: []time.Duration{200 * time.Millisecond, 200 * time.Millisecond}},
		{name: "mixed: each turn is its own pass's", measured: 2, calls: []int{2, 1, 2},
			wantGaps: []time.Duration{200 * time.Millisecond, 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBudget(rate.NewLimiter(10, 1))
			ctx, now := context.Background(), time.Now()
			for i := range passesMeasured + 1 {
				at := now.Add(time.Duration(i) * time.Second)
				if _, err := b.take(ctx, types.UID(fmt.Sprint(i)), tc.measured, at); err != nil {
					t.Fatalf("pass %d: %v", i, err)
				}
				b.attempts.Add(int64(tc.measured))
			}
			// Fill the limiter and the queue's first turn, then queue the
			// passes under test.
			at := now.Add(time.Hour)
			for i := range 4 {
				_, _ = b.take(ctx, types.UID(fmt.Sprint("fill", i)), 1, at)
			}
			var waits []time.Duration
			for i, calls := range tc.calls {
				_, err := b.take(ctx, types.UID(fmt.Sprint("x", i)), calls, at)
				d, ok := providers.AsDeferred(err)
				if !ok {
					t.Fatalf("pass %d not deferred: %v", i, err)
				}
				waits = append(waits, d.For)
			}
			for i, want := range tc.wantGaps {
				if gap := waits[i+1] - waits[i]; gap != want {
					t.Errorf("turn %d is %s after turn %d, want %s (waits %v)", i+1, gap, i, want, waits)
				}
			}
		})
	}
}

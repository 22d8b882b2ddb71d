package dynamodb

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers"
)

// A pass that waited for its account and region's limiter inside the SDK
// would hold one of the controller's workers while it waits. When one
// account's tables ask for more than its limiter allows, its passes would
// soon hold every worker, and the tables of every other account, whose
// limiters are idle, would wait behind them: one team's burst of tables
// would stall every other team's. So a pass starts only when its limiter
// can serve it within turnWait; otherwise it takes a turn in its limiter's
// queue, gives its worker back (providers.Deferred) and runs again when
// the turn comes. Turns are spaced one call apart (a steady pass is one
// DescribeTable), so a queue of thousands of passes costs each of them one
// deferral, not one per turnWait; when passes use more calls (creates,
// secondary reads) the limiter's own backlog spaces the turns further.
const turnWait = time.Second

// ReasonAccountBudget is the deferral reason of a pass waiting for its
// account and region's limiter (metric tether_deferred_passes_total).
const ReasonAccountBudget = "AccountBudget"

// turns is the queue of one limiter: when the passes waiting for it run.
type turns struct {
	limiter *rate.Limiter
	// end is the first turn not yet given.
	end time.Time
	// tickets are the turns of passes that were deferred.
	tickets map[types.UID]time.Time
}

// takeTurn lets obj's pass start now, or gives it a turn in its limiter's
// queue and returns the deferral that brings it back then. A pass that
// starts reserves its first call's token at once, so that passes started
// together see each other in the backlog; the returned context carries
// that token to the call (see limitEveryAttempt).
func (c *Clients) takeTurn(ctx context.Context, ep *endpoint, uid types.UID) (context.Context, error) {
	return c.takeTurnAt(ctx, ep, uid, time.Now())
}

func (c *Clients) takeTurnAt(ctx context.Context, ep *endpoint, uid types.UID, now time.Time) (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.turnsLocked(ep)
	ticket, held := t.tickets[uid]
	d := nextTurn(now, backlog(t.limiter, now), t.end, ticket, held, time.Duration(float64(time.Second)/float64(t.limiter.Limit())))
	t.end = d.end
	if d.wait > 0 {
		t.tickets[uid] = now.Add(d.wait)
		return ctx, providers.Deferred(d.wait, ReasonAccountBudget)
	}
	delete(t.tickets, uid)
	r := t.limiter.ReserveN(now, 1)
	return context.WithValue(ctx, prepaidKey{}, &prepaid{limiter: t.limiter, at: now.Add(r.DelayFrom(now))}), nil
}

// prepaid is a token a pass reserved when it started, for its first call.
type prepaid struct {
	limiter *rate.Limiter
	at      time.Time
	used    atomic.Bool
}

type prepaidKey struct{}

// takePrepaid returns when the call may go out if ctx carries an unused
// token of limiter, and uses it up.
func takePrepaid(ctx context.Context, limiter *rate.Limiter) (time.Time, bool) {
	p, ok := ctx.Value(prepaidKey{}).(*prepaid)
	if !ok || p.limiter != limiter || !p.used.CompareAndSwap(false, true) {
		return time.Time{}, false
	}
	return p.at, true
}

// waitUntil sleeps until at, or until ctx ends.
func waitUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Clients) turnsLocked(ep *endpoint) *turns {
	key := ep.Account + "|" + ep.Region
	t, ok := c.turns[key]
	if !ok {
		t = &turns{limiter: ep.limiter, tickets: map[types.UID]time.Time{}}
		c.turns[key] = t
	}
	return t
}

// dropTurnLocked forgets an object's turn (deleted, released, paused).
func (c *Clients) dropTurnLocked(uid types.UID) {
	for _, t := range c.turns {
		delete(t.tickets, uid)
	}
}

// backlog is how long a call asked for now would wait for the limiter.
func backlog(l *rate.Limiter, now time.Time) time.Duration {
	tokens := l.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / float64(l.Limit()) * float64(time.Second))
}

// turn is nextTurn's decision: wait 0 starts the pass now; otherwise the
// pass comes back after wait. end is the queue's new end.
type turn struct {
	wait time.Duration
	end  time.Time
}

// nextTurn decides for one pass, given how long a call would wait for the
// limiter now (backlog), the queue's end, and the pass's ticket if it holds
// one; spacing is one call's share of the limiter.
//
// A pass with no ticket starts when neither the limiter nor the queue
// would keep it over turnWait; otherwise it goes to the end of the queue.
// A pass whose turn has come starts when the limiter can serve it within
// turnWait; when it cannot (the passes before it used more calls than
// their turns), it is first in line again once the limiter has caught up.
func nextTurn(now time.Time, backlog time.Duration, end, ticket time.Time, held bool, spacing time.Duration) turn {
	if held {
		if early := ticket.Sub(now); early > turnWait {
			return turn{wait: early, end: end}
		}
		if backlog <= turnWait {
			return turn{end: end}
		}
		return turn{wait: backlog, end: latest(end, now.Add(backlog+spacing))}
	}
	ahead := max(backlog, end.Sub(now))
	if ahead <= turnWait {
		return turn{end: end}
	}
	return turn{wait: ahead, end: now.Add(ahead + spacing)}
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

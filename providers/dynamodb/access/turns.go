package access

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	"github.com/aws/smithy-go/middleware"
	"github.com/tether-dev/tether/providers"
)

// A pass that waited for its account and region's limiter inside the SDK
// would hold one of the controller's workers while it waits. When one
// account's tables ask for more than its limiter allows, its passes would
// soon hold every worker, and the tables of every other account, whose
// limiters are idle, would wait behind them: one team's burst of tables
// would stall every other team's. So a pass starts only when its limiter
// can serve it within turnWait; otherwise it takes a turn in its limiter's
// queue, gives its worker back (providers.Defer) and runs again when
// the turn comes.
//
// turnWait is five calls at the default 25 calls/s: an account whose
// limiter is saturated holds a few of the workers at most.
const turnWait = 200 * time.Millisecond

// Turns are spaced by the calls the pass holding the turn will make on that
// limiter, so that the passes come back as fast as the limiter serves
// them, each deferred once. The adapter says what it expects a pass to make
// (a steady pass is one DescribeTable; one that creates a table two), and
// the budget corrects that by what passes really made per expected call
// over the last passesMeasured passes (secondary reads, writes, retries).
//
// The expectation must be the pass's own, not an average of the passes that
// started lately: a turn is priced when it is given and used up to a minute
// later, by another kind of pass. After a burst of creates, every turn
// given while the creates ran (two calls each) went to their tables' next
// passes (one call each), and the limiter served those at half its rate.
const passesMeasured = 100

// reasonAccountBudget is the deferral reason of a pass waiting for its
// account and region's limiter (metric tether_deferred_passes_total).
const reasonAccountBudget = "AccountBudget"

// budget is one account's limiter in one region, and the queue of turns of
// the passes waiting for it.
type budget struct {
	limiter *rate.Limiter
	// attempts counts the calls made through the limiter.
	attempts atomic.Int64

	mu sync.Mutex
	// end is the first turn not yet given.
	end time.Time
	// tickets are the turns of passes that were deferred.
	tickets map[types.UID]time.Time
	// started, expected and callsAtStart measure the calls made per call
	// expected; perExpected is the last measure.
	started      int
	expected     int
	callsAtStart int64
	perExpected  float64
}

func newBudget(l *rate.Limiter) *budget {
	return &budget{limiter: l, tickets: map[types.UID]time.Time{}, perExpected: 1}
}

// wait waits for the limiter before one call, or, for a pass's first call,
// until the token the pass reserved when it started.
func (b *budget) wait(ctx context.Context) error {
	b.attempts.Add(1)
	if at, ok := takePrepaid(ctx, b); ok {
		return waitUntil(ctx, at)
	}
	return b.limiter.Wait(ctx)
}

func (b *budget) take(ctx context.Context, uid types.UID, calls int, now time.Time) (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ticket, held := b.tickets[uid]
	// A pass makes its first call at least.
	share := max(1, float64(calls)*b.perExpected)
	spacing := time.Duration(share / float64(b.limiter.Limit()) * float64(time.Second))
	d := nextTurn(now, backlog(b.limiter, now), b.end, ticket, held, spacing)
	b.end = d.end
	if d.wait > 0 {
		b.tickets[uid] = now.Add(d.wait)
		return ctx, providers.Defer(d.wait, reasonAccountBudget)
	}
	delete(b.tickets, uid)
	b.measureLocked(calls)
	r := b.limiter.ReserveN(now, 1)
	return context.WithValue(ctx, prepaidKey{}, &prepaid{budget: b, at: now.Add(r.DelayFrom(now))}), nil
}

// measureLocked counts a started pass expected to make expected calls; once
// passesMeasured passes have started since the last measure, it takes the
// calls they made per call expected (the pass starting now has made none
// yet).
func (b *budget) measureLocked(expected int) {
	calls := b.attempts.Load()
	if b.started >= passesMeasured && b.expected > 0 {
		b.perExpected = float64(calls-b.callsAtStart) / float64(b.expected)
		b.started, b.expected, b.callsAtStart = 0, 0, calls
	}
	b.started++
	b.expected += max(1, expected)
}

// drop forgets an object's turn (deleted, released, paused).
func (b *budget) drop(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.tickets, uid)
}

// prepaid is a token a pass reserved when it started, for its first call.
type prepaid struct {
	budget *budget
	at     time.Time
	used   atomic.Bool
}

type prepaidKey struct{}

// takePrepaid returns when the call may go out if ctx carries an unused
// token of b, and uses it up.
func takePrepaid(ctx context.Context, b *budget) (time.Time, bool) {
	p, ok := ctx.Value(prepaidKey{}).(*prepaid)
	if !ok || p.budget != b || !p.used.CompareAndSwap(false, true) {
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
// one; spacing is one pass's share of the limiter.
//
// A pass with no ticket starts when neither the limiter nor the queue
// would keep it over turnWait; otherwise it goes to the end of the queue.
// A pass whose turn has come starts when the limiter can serve it within
// turnWait; when it cannot (the passes before it used more calls than
// their turns were spaced for), it goes to the end of the queue again:
// turns stay one pass apart, so passes that missed theirs do not all come
// back at once.
func nextTurn(now time.Time, backlog time.Duration, end, ticket time.Time, held bool, spacing time.Duration) turn {
	if held {
		if early := ticket.Sub(now); early > turnWait {
			return turn{wait: early, end: end}
		}
		if backlog <= turnWait {
			return turn{end: end}
		}
	} else if max(backlog, end.Sub(now)) <= turnWait {
		return turn{end: end}
	}
	ahead := max(backlog, end.Sub(now))
	return turn{wait: ahead, end: now.Add(ahead + spacing)}
}

// limitEveryAttempt waits for the limiter before each attempt, retries
// included (retries are where storms come from); a pass's first call uses
// the token the pass reserved when it took its turn (turns.go). It sits
// right after the retry loop and before signing, so a wait never ages a
// signature.
func limitEveryAttempt(b *budget) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("TetherRateLimit",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := b.wait(ctx); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleFinalize(ctx, in)
			})
		if err := stack.Finalize.Insert(mw, "Retry", middleware.After); err == nil {
			return nil
		}
		return stack.Finalize.Add(mw, middleware.After)
	}
}

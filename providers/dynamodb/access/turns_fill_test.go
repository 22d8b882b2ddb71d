package access

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// The default limiter, and the controller's workers (10), as the manager
// runs them.
const (
	simRate    = DefaultRequestsPerSecond
	simBurst   = defaultBurst
	simWorkers = 10
)

// Turns must keep a saturated limiter full: after a burst of creates the
// limiter serves every table's calls at its rate, so that the last table is
// Ready when the limiter's floor says (Figure 4: 1000 tables, three calls
// each), while the tables of another account, whose limiter is idle, are
// not held behind the burst. The simulation drives budget.take with a
// synthetic clock; it is a model of the workqueue and of DynamoDB Local
// (each call 5 ms, a created table ACTIVE at once, as Figure 4 counts: a
// DescribeTable and a CreateTable, then a DescribeTable that finds it
// Ready), not a measure of the operator.
func TestTurnsKeepTheLimiterFull(t *testing.T) {
	floor := func(tables int) time.Duration {
		return time.Duration(float64(3*tables-simBurst) / simRate * float64(time.Second))
	}
	for _, tc := range []struct {
		name    string
		tables  [2]int
		arrive  [2]time.Duration
		spread  time.Duration // the first account's tables arrive over this long
		maxLate time.Duration // after the limiter's floor, for the first account
		// maxOther is how long the second account's tables may take,
		// from their arrival to the last one Ready.
		maxOther time.Duration
	}{
		{name: "1000 tables of one account at once", tables: [2]int{1000, 0}, maxLate: 3 * time.Second},
		{name: "1000 tables of one account over 20 s", tables: [2]int{1000, 0}, spread: 20 * time.Second, maxLate: 3 * time.Second},
		{name: "another account's 20 tables during the burst are not held behind it",
			tables: [2]int{1000, 20}, arrive: [2]time.Duration{0, 30 * time.Second}, maxLate: 3 * time.Second, maxOther: 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := simulateTurns(t, tc.tables, tc.arrive, tc.spread)
			t.Logf("first account: all Ready at %.1f s (floor %.1f s), %d calls, %d passes, %d deferrals",
				res.lastReady[0].Seconds(), floor(tc.tables[0]).Seconds(), res.calls[0], res.passes, res.deferrals)
			if late := res.lastReady[0] - floor(tc.tables[0]); late > tc.maxLate {
				t.Errorf("the last of the first account's tables was Ready %.1f s after the limiter's floor (%.1f s), want at most %s: turns left the limiter idle (%.1f calls/s)",
					late.Seconds(), floor(tc.tables[0]).Seconds(), tc.maxLate, float64(res.calls[0])/res.lastReady[0].Seconds())
			}
			// Each table is deferred at most once for its create and once
			// for its next pass: no pass misses its turn and goes round.
			if max := 2 * (tc.tables[0] + tc.tables[1]); res.deferrals > max {
				t.Errorf("%d deferrals, want at most %d (two per table)", res.deferrals, max)
			}
			if tc.tables[1] > 0 {
				took := res.lastReady[1] - tc.arrive[1]
				t.Logf("second account: last Ready %.1f s after arriving", took.Seconds())
				if took > tc.maxOther {
					t.Errorf("the second account's tables took %.1f s to be Ready, want at most %s: held behind the first account's burst", took.Seconds(), tc.maxOther)
				}
			}
		})
	}
}

// simTable is one DynamoDBTable in the simulation.
type simTable struct {
	obj     *awsv1alpha1.DynamoDBTable
	budget  *budget
	account int
}

type simItem struct {
	at    time.Time
	seq   int
	table *simTable
}

// simQueue is the workqueue: items in the order they are due.
type simQueue []simItem

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(simItem)) }
func (q *simQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

type simResult struct {
	lastReady [2]time.Duration // per account, since the start
	calls     [2]int
	passes    int
	deferrals int
}

// simulateTurns runs tables[a] tables of account a, arriving at arrive[a]
// (the first account's spread evenly over spread), through simWorkers
// workers that take the items in the order they are due. A deferred pass
// comes back exactly after the wait it was given (the generic reconciler
// requeues it after that delay, with no jitter or rate limit); the pass
// after a create comes after AfterWrite (1 s, +10% jitter).
func simulateTurns(t *testing.T, tables [2]int, arrive [2]time.Duration, spread time.Duration) simResult {
	t.Helper()
	const (
		latency    = 5 * time.Millisecond  // one DynamoDB call
		statusPut  = 10 * time.Millisecond // the status write after a pass that ran
		deferCost  = time.Millisecond      // a deferred pass's time on its worker
		afterWrite = time.Second
	)
	rng := rand.New(rand.NewSource(1))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	budgets := [2]*budget{newBudget(rate.NewLimiter(simRate, simBurst)), newBudget(rate.NewLimiter(simRate, simBurst))}
	q := &simQueue{}
	seq := 0
	push := func(at time.Time, tb *simTable) {
		seq++
		heap.Push(q, simItem{at: at, seq: seq, table: tb})
	}
	for a := range 2 {
		for i := range tables[a] {
			at := arrive[a]
			if a == 0 && spread > 0 {
				at += spread * time.Duration(i) / time.Duration(tables[a])
			}
			obj := &awsv1alpha1.DynamoDBTable{}
			obj.UID = types.UID(fmt.Sprintf("a%d-%d", a, i))
			push(t0.Add(at), &simTable{obj: obj, budget: budgets[a], account: a})
		}
	}
	free := make([]time.Time, simWorkers)
	for i := range free {
		free[i] = t0
	}
	var res simResult
	ctx := context.Background()
	for q.Len() > 0 {
		it := heap.Pop(q).(simItem)
		w := 0
		for i := range free {
			if free[i].Before(free[w]) {
				w = i
			}
		}
		now := it.at
		if free[w].After(now) {
			now = free[w]
		}
		tb, b := it.table, it.table.budget
		res.passes++
		started, err := b.take(ctx, tb.obj.UID, expectedCalls(tb.obj), now)
		if d, ok := providers.AsDeferred(err); ok {
			res.deferrals++
			free[w] = now.Add(deferCost)
			push(now.Add(d.For), tb)
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		// DescribeTable, with the token reserved at the start.
		at, ok := takePrepaid(started, b)
		if !ok {
			t.Fatal("a started pass carries no token")
		}
		b.attempts.Add(1)
		res.calls[tb.account]++
		end := at.Add(latency)
		if tb.obj.Status.TableID == "" {
			// CreateTable waits for the limiter; it is reserved at the
			// pass's start, as the limiter's clock must not go back
			// between passes (it goes out after the DescribeTable).
			b.attempts.Add(1)
			res.calls[tb.account]++
			r := b.limiter.ReserveN(now, 1)
			end = maxTime(end, now.Add(r.DelayFrom(now))).Add(latency)
			tb.obj.Status.TableID = "created"
			free[w] = end.Add(statusPut)
			push(free[w].Add(afterWrite+time.Duration(rng.Float64()*0.1*float64(afterWrite))), tb)
			continue
		}
		free[w] = end.Add(statusPut)
		res.lastReady[tb.account] = max(res.lastReady[tb.account], end.Sub(t0))
	}
	return res
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// expectedCalls is what the adapter expects a pass to make (its
// observeCalls): a DescribeTable, and a CreateTable while no table is on
// record.
func expectedCalls(obj *awsv1alpha1.DynamoDBTable) int {
	if obj.Status.TableID == "" {
		return 2
	}
	return 1
}

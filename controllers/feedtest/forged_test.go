package feedtest

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/sqstest"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
)

// Issue 39, items 8 to 10: what anyone who may send to an account's queue
// can do with forged messages, through the real manager's feeds. The
// forger knows the account, its Region and its tables' names; its messages
// are shaped as AWS's events are (sqstest.Call), and are counted.

// liveHeap is the bytes of the test binary's heap still in use after a
// collection: the manager and its feeds run in this process.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Item 8: 200 forged read-only events about distinct 120 KB table names
// nobody holds (each event under EventBridge's 256 KB, the name in it
// twice) are dropped as malformed, and the manager keeps nothing of them:
// its live heap grows by less than a tenth of what they name. (Before,
// each was remembered twice for the echo window: 200 made 400 entries and
// some 47 MB.) Not parallel: the heap is the whole process's.
func TestForgedEventsAboutTablesNobodyHoldsKeepNothing(t *testing.T) {
	const events, nameBytes = 200, 120 * 1024
	g := NewWithT(t)
	ctx := context.Background()
	a, _, _ := s.account(t, "")
	// A queue that takes messages up to SQS's largest, 1 MiB: what stops
	// the events must be Tether, not the queue.
	big, _, err := s.sqs.CreateQueue(ctx, name("forged"), map[string]string{"MaximumMessageSize": "1048576"})
	g.Expect(err).NotTo(HaveOccurred())
	before := a.DeepCopy()
	a.Spec.ChangeEvents.Queue = big
	g.Expect(s.c.Patch(ctx, a, client.MergeFrom(before))).To(Succeed())
	s.mode(t, a, awsv1alpha1.ChangeEventsModeEvents, changefeed.ReasonReceiving)

	heap := liveHeap()
	for i := 0; i < events; i += 10 {
		// Ten at a time: the test itself holds no more of them.
		var bodies []string
		for j := i; j < i+10; j++ {
			table := fmt.Sprintf("%0*d", nameBytes, j) // distinct
			body := sqstest.Call{Name: "DescribeTable", Account: accountID, Region: region, Table: table, ReadOnly: true}.Event()
			if len(body) > changefeed.MaxEventBytes {
				t.Fatalf("a forged event of %d bytes would be dropped for its size alone", len(body))
			}
			bodies = append(bodies, body)
		}
		s.send(t, big, bodies...)
	}
	s.emptied(t, big) // every message handled, then deleted
	grown := int64(liveHeap()) - int64(heap)
	t.Logf("live heap after %d forged events naming %d MiB: %+d KiB", events, events*nameBytes>>20, grown>>10)
	g.Expect(grown).To(BeNumerically("<", events*nameBytes/10), "the feed kept what forged events named")
	g.Expect(outcomes(t, a.Name)).To(HaveKeyWithValue(changefeed.OutcomeMalformed, float64(events)))
}

// Item 9: a feed missing an echo (NoEcho) is not put back to Events by
// forged events: a read-only ListTables about no table, a read of the
// table, another call about the table, the same call about another table.
// (Before, any event from the account did.) Only the echo of one of
// Tether's own calls does (the rule, a MODEL, delivering again).
func TestAForgedEventDoesNotEndNoEcho(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := s.echoingAccount(t)
	e.rule.SetEnabled(false)
	e.resized(6)
	s.mode(t, e.account, awsv1alpha1.ChangeEventsModePolling, changefeed.ReasonNoEcho)

	obj := e.table
	forged := []sqstest.Call{
		{Name: "ListTables", Account: accountID, Region: region, ReadOnly: true},
		{Name: "DescribeTable", Account: accountID, Region: region, Table: obj.Status.TableName, ReadOnly: true},
		call("TagResource", obj, time.Now()),
		call("UpdateTimeToLive", obj, time.Now()),
		{Name: "UpdateTable", Account: accountID, Region: region, Table: name("another")},
	}
	var bodies []string
	for _, c := range forged {
		bodies = append(bodies, c.Event())
	}
	before := outcomes(t, e.account.Name)
	s.send(t, e.url, bodies...)
	s.emptied(t, e.url)
	// Every forged message reached the feed and was handled: the two
	// reads ignored, the call about a table nobody holds foreign, the two
	// calls about the table woken or covered (the rule is off, so nothing
	// else arrives meanwhile).
	g.Eventually(func(g Gomega) {
		got := outcomes(t, e.account.Name)
		diff := func(o string) float64 { return got[o] - before[o] }
		g.Expect(diff(changefeed.OutcomeIgnored)).To(Equal(2.0))
		g.Expect(diff(changefeed.OutcomeForeign)).To(Equal(1.0))
		g.Expect(diff(changefeed.OutcomeWoken) + diff(changefeed.OutcomeCovered)).To(Equal(2.0))
	}, timeout, tick).Should(Succeed(), "the forged messages did not all reach the feed")
	g.Consistently(func(g Gomega) string {
		cur := &awsv1alpha1.AWSAccount{}
		g.Expect(s.c.Get(context.Background(), client.ObjectKeyFromObject(e.account), cur)).To(Succeed())
		return cur.Status.ChangeEvents.Reason
	}, echoWindow+2*time.Second, tick).Should(Equal(changefeed.ReasonNoEcho), "a forged event ended NoEcho")

	e.rule.SetEnabled(true)
	e.resized(7)
	s.mode(t, e.account, awsv1alpha1.ChangeEventsModeEvents, changefeed.ReasonReceiving)
}

// Item 10: 100 forged UpdateTable events about one table, each with a
// fresh id and an eventTime an hour ahead, cost at most one look per 3 s
// of the flood (event times are taken as no later than now, and the looks
// events queue are spaced per table), not one look each.
func TestAFloodOfForgedChangesCostsOneLookPerSpacing(t *testing.T) {
	t.Parallel()
	const flood = 100
	g := NewWithT(t)
	a, ns, url := s.account(t, "")
	obj := s.ready(t, s.table(t, ns))
	s.covered(t, a, obj)

	looks := s.describes(obj)
	var bodies []string
	for range flood {
		bodies = append(bodies, call("UpdateTable", obj, time.Now().Add(time.Hour)).Event())
	}
	began := time.Now()
	s.send(t, url, bodies...)
	s.emptied(t, url)
	spent := time.Since(began)
	// The first look at once, then one per spacing (3 s) while the flood
	// lasts, and the one after it: an event routed t after the first look
	// is covered by a look queued for past t plus the cover margin (2 s),
	// so a flood routed in spent asks for at most one look more per 3 s of
	// spent and 2 s (changefeed/route.go, wake).
	most := 2 + int((spent+2*time.Second)/(3*time.Second))
	g.Eventually(s.describesOf(obj), timeout, tick).Should(BeNumerically(">", looks), "the table was not looked at")
	g.Consistently(func() int { return s.describes(obj) - looks }, 3*pollInterval, tick).Should(BeNumerically("<=", most),
		"%d forged events in %s cost more than %d looks", flood, spent.Round(time.Millisecond), most)
	got := outcomes(t, a.Name)
	t.Logf("%d forged events in %s: %d looks, outcomes %v", flood, spent.Round(time.Millisecond), s.describes(obj)-looks, got)
	g.Expect(got[changefeed.OutcomeWoken]).To(BeNumerically("<=", most))
}

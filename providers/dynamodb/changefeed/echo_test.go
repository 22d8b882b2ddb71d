package changefeed

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/sqstest"
)

// The echo check: a healthy feed expects each of Tether's own calls back
// as an event within its echo window; only the event of that very call
// about that very table meets it; a call that does not come back puts the
// feed on polling (NoEcho), and only the echo of that call, or of one of
// Tether's calls made since, takes it back: not SQS answering, not any
// other event (issue 39 item 9: a forged read-only event about no table,
// or an event of another call or table, ended NoEcho). Each step is at an
// offset from t0, with SQS answering and the check running at every tick,
// as the reader and the registry do.
func TestEchoes(t *testing.T) {
	const (
		window  = 15 * time.Minute
		account = "111122223333"
		other   = "999988887777"
		region  = "eu-west-1"
	)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step func(h *health) bool
	at := func(d time.Duration, call, account, table string) echo {
		return echo{call: call, account: account, region: region, table: table, at: t0.Add(d)}
	}
	// sent is one of Tether's calls, begun at d and accepted at once.
	sent := func(d time.Duration, call, account, table string) step {
		return func(h *health) bool {
			e := at(d, call, account, table)
			h.begin(e)
			return h.callAnswered(t0.Add(d), e, true)
		}
	}
	// began and answered are the two ends of a call under way.
	began := func(d time.Duration, call, account, table string) step {
		return func(h *health) bool { h.begin(at(d, call, account, table)); return false }
	}
	answered := func(d, began time.Duration, call, account, table string, accepted bool) step {
		return func(h *health) bool { return h.callAnswered(t0.Add(d), at(began, call, account, table), accepted) }
	}
	heard := func(d time.Duration, call, account, table string) step {
		return func(h *health) bool { return h.hear(t0.Add(d), at(d, call, account, table)) }
	}
	tick := func(d time.Duration) step {
		return func(h *health) bool {
			answered := h.answered(t0.Add(d))
			checked := h.check(t0.Add(d))
			return answered || checked
		}
	}
	failed := func(d time.Duration, reason string) step {
		return func(h *health) bool { return h.failed(t0.Add(d), reason, "no") }
	}
	// many is 1,000 calls about 100 tables, ten each, and their events
	// but for those of the table skipped ("" skips none).
	many := func(skipped string) step {
		return func(h *health) bool {
			for i := range 1000 {
				sent(time.Second, "UpdateTable", account, fmt.Sprintf("t%02d", i%100))(h)
			}
			if len(h.expected) != 100 {
				t.Errorf("1,000 calls about 100 tables: %d expected, want one per table", len(h.expected))
			}
			for i := range 100 {
				if table := fmt.Sprintf("t%02d", i); table != skipped {
					heard(time.Minute, "UpdateTable", account, table)(h)
				}
			}
			return false
		}
	}
	up := tick(0)
	past := window + 2*time.Second
	missing := []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past)}
	then := func(steps ...step) []step { return append(slices.Clone(missing), steps...) }

	cases := []struct {
		name      string
		steps     []step
		mode, why string
		// changes is how many steps changed the mode (the first answer
		// included).
		changes int
		// says are in the status message.
		says []string
	}{
		{name: "a call that comes back keeps the feed",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(2*time.Minute, "UpdateTable", account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a call not back yet, within the window",
			steps: []step{up, sent(2*time.Second, "UpdateTable", account, "orders"), tick(window + 2*time.Second)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a call not back past the window",
			steps: []step{up, sent(time.Second, "TagResource", account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2,
			says: []string{"TagResource", "orders", account, region, "2026-01-01T00:00:01Z", "15m0s", "EventBridge rule exists and is enabled",
				"pattern matches TagResource", "events.amazonaws.com", "aws:SourceArn", "CloudTrail trail is logging"}},
		{name: "an event about another table does not meet it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(time.Minute, "UpdateTable", account, "invoices"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event of another call about the table does not meet it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(time.Minute, "TagResource", account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event about a table of the same name in another account does not meet it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(time.Minute, "UpdateTable", other, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event that arrived while the call was under way meets it",
			steps: []step{up, began(time.Second, "UpdateTable", account, "orders"), heard(2*time.Second, "UpdateTable", account, "orders"),
				answered(3*time.Second, time.Second, "UpdateTable", account, "orders", true), tick(past)},
			mode: awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "an event that arrived before the call began does not meet it",
			steps: []step{up, heard(time.Second, "UpdateTable", account, "orders"), sent(2*time.Second, "UpdateTable", account, "orders"), tick(past + time.Second)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "a call AWS refused is not expected",
			steps: []step{up, began(time.Second, "UpdateTable", account, "orders"), answered(2*time.Second, time.Second, "UpdateTable", account, "orders", false), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a call made while the feed polls is not expected",
			steps: []step{sent(time.Second, "UpdateTable", account, "orders"), tick(2 * time.Second), tick(past + time.Second)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a feed that fails forgets what it expected",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), failed(time.Minute, ReasonAccessDenied), tick(2 * time.Minute), tick(past + time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "the same call twice: one event meets both",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), sent(2*time.Second, "UpdateTable", account, "orders"),
				heard(time.Minute, "UpdateTable", account, "orders"), tick(past + time.Second)},
			mode: awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "two calls to a table: the window runs from the first",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), sent(10*time.Minute, "TagResource", account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2, says: []string{"UpdateTable", "2026-01-01T00:00:01Z"}},
		{name: "1,000 calls about 100 tables, all back",
			steps: []step{up, many(""), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "1,000 calls about 100 tables, one table's not back",
			steps: []step{up, many("t42"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2, says: []string{"table t42 "}},
		{name: "SQS answering does not restore a missing echo",
			steps: then(tick(past+time.Minute), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "the missing call's own event restores it",
			steps: then(heard(past+time.Minute, "UpdateTable", account, "orders"), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "the echo of a call Tether made since restores it",
			steps: then(sent(past+time.Second, "DeleteTable", account, "invoices"), heard(past+time.Minute, "DeleteTable", account, "invoices"), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "an event about another table from the account does not restore it",
			steps: then(heard(past+time.Minute, "UpdateTable", account, "invoices"), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event of another call about the table does not restore it",
			steps: then(heard(past+time.Minute, "UpdateTimeToLive", account, "orders"), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event from another account does not restore it",
			steps: then(heard(past+time.Minute, "UpdateTable", other, "orders"), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "a queue that fails and answers again after a missing echo is still missing it",
			steps: then(failed(past+time.Minute, ReasonQueueNotFound), tick(past+2*time.Minute)),
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "restored, then a call missed again",
			steps: then(heard(past+time.Minute, "UpdateTable", account, "orders"), sent(past+2*time.Minute, "DeleteTable", account, "invoices"),
				tick(2*past+2*time.Minute)),
			mode: awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 4, says: []string{"DeleteTable", "invoices"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := startingHealth(t0, window)
			changes := 0
			for _, s := range c.steps {
				if s(&h) {
					changes++
				}
			}
			if h.mode != c.mode || h.reason != c.why {
				t.Errorf("%s/%s (%s), want %s/%s", h.mode, h.reason, h.message, c.mode, c.why)
			}
			if changes != c.changes {
				t.Errorf("the mode changed %d times, want %d", changes, c.changes)
			}
			for _, s := range c.says {
				if !strings.Contains(h.message, s) {
					t.Errorf("the message does not say %q: %s", s, h.message)
				}
			}
			if len(h.underway) != 0 || len(h.early) != 0 {
				t.Errorf("calls still under way after their answers: %v, %v", h.underway, h.early)
			}
		})
	}
}

// Issue 39 item 8: what a feed keeps about tables is only about Tether's
// own calls. Events about 10,000 tables nobody holds, and events of calls
// about Tether's tables it did not make, leave nothing behind, healthy or
// missing an echo; an event that arrives while a call is under way is
// kept only until its answer.
func TestHealthKeepsOnlyTethersOwnCalls(t *testing.T) {
	const account, region = "111122223333", "eu-west-1"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := startingHealth(t0, time.Minute)
	h.answered(t0)
	kept := func() int { return len(h.expected) + len(h.underway) + len(h.early) }
	forged := func(at time.Time) {
		for i := range 10_000 {
			h.hear(at, echo{call: "UpdateTable", account: account, region: region, table: fmt.Sprintf("nobodys-%05d", i), at: at})
		}
	}
	forged(t0)
	if n := kept(); n != 0 {
		t.Fatalf("10,000 events about tables nobody holds left %d entries", n)
	}
	own := echo{call: "UpdateTable", account: account, region: region, table: "orders", at: t0}
	h.begin(own)
	h.hear(t0, own)
	forged(t0)
	if n := kept(); n != 2 {
		t.Fatalf("one call under way and its event: %d entries, want 2", n)
	}
	h.callAnswered(t0, own, true)
	if n := kept(); n != 0 {
		t.Fatalf("the call answered and its event come: %d entries, want none", n)
	}
	h.begin(own)
	h.callAnswered(t0.Add(time.Second), echo{call: own.call, account: account, region: region, table: own.table, at: t0.Add(time.Second)}, true)
	h.answered(t0.Add(2 * time.Minute))
	h.check(t0.Add(2 * time.Minute))
	if h.reason != ReasonNoEcho {
		t.Fatalf("a call that did not come back: %s", h.reason)
	}
	forged(t0.Add(3 * time.Minute))
	if n := kept(); n != 0 {
		t.Fatalf("missing an echo, 10,000 events about tables nobody holds left %d entries", n)
	}
}

// Through the registry: only the calls the rule sends are expected, of
// the feed of the identity that made them, and only once AWS accepted
// them; a missing echo wakes the tables the feed covered and the status
// says why; the event of the call, read by any feed of the queue, meets
// it, even one about a table no object holds; a failed call's event does
// not, nor does any other event restore the feed: only the missing call's
// echo, or that of a call made since.
func TestAMissingEchoPutsTheTablesBackOnPolling(t *testing.T) {
	const (
		account = "111122223333"
		region  = "eu-west-1"
		queue   = "arn:aws:sqs:eu-west-1:111122223333:changes"
		window  = time.Minute
	)
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := NewRegistry(Options{Reader: tablesReader{}, SessionName: func(*awsv1alpha1.AWSAccount) string { return "tether" }, Clock: clock})
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := r.Tables().Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	a := newFeed("team-a", "fp", nil, queue, "", "", time.Hour, window)
	b := newFeed("team-b", "fp", nil, queue, "", "", time.Hour, window)
	for _, f := range []*feed{a, b} {
		f.cancel = func() {}
		r.feeds[f.identity] = f
		r.update(f, (*health).answered)
	}
	orders := types.NamespacedName{Namespace: "team-a", Name: "orders"}
	r.Cover("team-a", orders)
	event := func(call, table string, mutate ...func(*sqstest.Call)) string {
		c := sqstest.Call{Name: call, Account: account, Region: region, Table: table, At: clock.Now(), Role: "tether", Session: "tether"}
		for _, m := range mutate {
			m(&c)
		}
		return c.Event()
	}
	sent := func(identity, call, table string) {
		r.Sending(identity, call, account, region, table, clock.Now())(true)
	}
	// SQS answers both feeds, the minute passes, and the check runs.
	aMinuteLater := func() {
		clock.Step(window + time.Second)
		for _, f := range []*feed{a, b} {
			r.update(f, (*health).answered)
		}
		r.checkAll()
	}
	mode := func(identity string) string {
		s, _ := r.Status(identity)
		return s.Reason
	}

	// Reads are not expected back, nor calls of an identity without a
	// feed, nor a call AWS refused, nor one under an account that is no
	// account id (no event could meet it); a call is expected of its own
	// identity's feed only.
	sent("team-a", "DescribeTable", "orders")
	sent("team-c", "UpdateTable", "orders")
	r.Sending("team-a", "UpdateTable", account, region, "orders", clock.Now())(false)
	r.Sending("team-a", "UpdateTable", "", region, "orders", clock.Now())(true)
	sent("team-b", "UpdateTable", "invoices")
	if outcome := r.route(context.Background(), a, event("UpdateTable", "invoices")); outcome != OutcomeForeign {
		t.Fatalf("an event about a table no object holds: %s", outcome)
	}
	aMinuteLater()
	if mode("team-a") != ReasonReceiving || mode("team-b") != ReasonReceiving || q.Len() != 0 {
		t.Fatalf("after calls that are not expected, or came back through another reader of the queue: %s, %s, %d woken",
			mode("team-a"), mode("team-b"), q.Len())
	}

	// A failed call's event does not meet the call; its own event does.
	sent("team-a", "UpdateTable", "orders")
	if outcome := r.route(context.Background(), b, event("UpdateTable", "orders", func(c *sqstest.Call) { c.ErrorCode = "ValidationException" })); outcome != OutcomeIgnored {
		t.Fatalf("a failed call's event: %s", outcome)
	}
	r.route(context.Background(), b, event("UpdateTable", "orders"))
	aMinuteLater()
	if mode("team-a") != ReasonReceiving {
		t.Fatalf("a call whose event came back: %s", mode("team-a"))
	}

	// A call that does not come back.
	sent("team-a", "TagResource", "orders")
	aMinuteLater()
	s, _ := r.Status("team-a")
	if s.Mode != awsv1alpha1.ChangeEventsModePolling || s.Reason != ReasonNoEcho || !strings.Contains(s.Message, "TagResource of table orders") {
		t.Fatalf("a call that did not come back: %+v", s)
	}
	if got := drain(q); len(got) != 1 || !got[orders] {
		t.Fatalf("woken %v, want %v back on polling", got, orders)
	}
	if _, ok := r.Cover("team-a", orders); ok {
		t.Fatal("a feed whose call did not come back covers its tables")
	}
	if mode("team-b") != ReasonReceiving {
		t.Fatalf("another feed of the queue: %s", mode("team-b"))
	}

	// Other events from the account, read by either feed, do not restore
	// it: another call, another table, a read about no table.
	r.route(context.Background(), b, event("UpdateTimeToLive", "orders", func(c *sqstest.Call) { c.Role, c.Session = "Admin", "console-user" }))
	r.route(context.Background(), b, event("TagResource", "anything", func(c *sqstest.Call) { c.Role, c.Session = "Admin", "console-user" }))
	r.route(context.Background(), a, event("ListTables", "", func(c *sqstest.Call) { c.ReadOnly = true }))
	if mode("team-a") != ReasonNoEcho {
		t.Fatalf("after events that are not the missing echo: %s", mode("team-a"))
	}
	// The echo of the missing call, read by either feed, restores it.
	r.route(context.Background(), b, event("TagResource", "orders"))
	if mode("team-a") != ReasonReceiving {
		t.Fatalf("after the missing call's echo: %s", mode("team-a"))
	}
}

// TestEchoedCallsAreTheDocumentedRules: the calls whose echo Tether waits
// for are exactly the eventName list of the rule docs/accounts.md tells
// users to create. A call the rule does not send would be waited for in
// vain (NoEcho on a healthy feed); a call it sends that Tether does not
// expect would go unchecked.
func TestEchoedCallsAreTheDocumentedRules(t *testing.T) {
	documented, err := sqstest.DocumentedEventNames()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(documented)
	if got := slices.Sorted(maps.Keys(echoedCalls)); !slices.Equal(got, documented) {
		t.Errorf("echoedCalls %v, the documented rule's eventName list %v", got, documented)
	}
}

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
// as an event within its echo window; an event about the table meets the
// call; a call that does not come back puts the feed on polling (NoEcho),
// and only an event from the account, not SQS answering, takes it back.
// Each step is at an offset from t0, with SQS answering and the check
// running at every tick, as the reader and the registry do.
func TestEchoes(t *testing.T) {
	const (
		window  = 15 * time.Minute
		account = "111122223333"
		other   = "999988887777"
		region  = "eu-west-1"
	)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step func(h *health) bool
	sent := func(d time.Duration, call, account, table string) step {
		return func(h *health) bool {
			h.expect(echo{call: call, account: account, region: region, table: table, at: t0.Add(d)})
			return false
		}
	}
	heard := func(d time.Duration, account, table string) step {
		return func(h *health) bool { return h.hear(t0.Add(d), account, region, table) }
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
				h.expect(echo{call: "UpdateTable", account: account, region: region, table: fmt.Sprintf("t%02d", i%100), at: t0.Add(time.Second)})
			}
			if len(h.expected) != 100 {
				t.Errorf("1,000 calls about 100 tables: %d expected, want one per table", len(h.expected))
			}
			for i := range 100 {
				if table := fmt.Sprintf("t%02d", i); table != skipped {
					h.hear(t0.Add(time.Minute), account, region, table)
				}
			}
			return false
		}
	}
	up := tick(0)
	past := window + 2*time.Second

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
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(2*time.Minute, account, "orders"), tick(past)},
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
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(time.Minute, account, "invoices"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event about a table of the same name in another account does not meet it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), heard(time.Minute, other, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "an event that arrived before the call returned meets it",
			steps: []step{up, heard(2*time.Second, account, "orders"), sent(time.Second, "UpdateTable", account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "an event that arrived before the call began does not meet it",
			steps: []step{up, heard(time.Second, account, "orders"), sent(2*time.Second, "UpdateTable", account, "orders"), tick(past + time.Second)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "a call whose account Tether does not know is met by its table's event",
			steps: []step{up, sent(time.Second, "UpdateTable", "", "orders"), heard(time.Minute, account, "orders"), tick(past)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a call made while the feed polls is not expected",
			steps: []step{sent(time.Second, "UpdateTable", account, "orders"), tick(2 * time.Second), tick(past + time.Second)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 1},
		{name: "a feed that fails forgets what it expected",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), failed(time.Minute, ReasonAccessDenied), tick(2 * time.Minute), tick(past + time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "the same call twice: one event meets both",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), sent(2*time.Second, "UpdateTable", account, "orders"),
				heard(time.Minute, account, "orders"), tick(past + time.Second)},
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
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), tick(past + time.Minute), tick(past + 2*time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "any event from the account restores it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), heard(past+time.Minute, account, "invoices"), tick(past + 2*time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "an event about no table from the account restores it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), heard(past+time.Minute, account, "")},
			mode:  awsv1alpha1.ChangeEventsModeEvents, why: ReasonReceiving, changes: 3},
		{name: "an event from another account does not restore it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), heard(past+time.Minute, other, "orders"), tick(past + 2*time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "a queue that fails and answers again after a missing echo is still missing it",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), failed(past+time.Minute, ReasonQueueNotFound), tick(past + 2*time.Minute)},
			mode:  awsv1alpha1.ChangeEventsModePolling, why: ReasonNoEcho, changes: 2},
		{name: "restored, then a call missed again",
			steps: []step{up, sent(time.Second, "UpdateTable", account, "orders"), tick(past), heard(past+time.Minute, account, "orders"),
				sent(past+2*time.Minute, "DeleteTable", account, "invoices"), tick(2*past + 2*time.Minute)},
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
		})
	}
}

// Through the registry: only the calls the rule sends are expected, of
// the feed of the identity that made them; a missing echo wakes the tables
// the feed covered and the status says why; an event read by any feed of
// the queue meets the call, even a failed call's and one about a table no
// object holds; a later event from the account restores the feed.
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
	// feed; a call is expected of its own identity's feed only.
	r.Sent("team-a", "DescribeTable", account, region, "orders", clock.Now())
	r.Sent("team-c", "UpdateTable", account, region, "orders", clock.Now())
	r.Sent("team-b", "UpdateTable", account, region, "invoices", clock.Now())
	if outcome := r.route(context.Background(), a, event("UpdateTable", "invoices")); outcome != OutcomeForeign {
		t.Fatalf("an event about a table no object holds: %s", outcome)
	}
	aMinuteLater()
	if mode("team-a") != ReasonReceiving || mode("team-b") != ReasonReceiving || q.Len() != 0 {
		t.Fatalf("after calls that are not expected, or came back through another reader of the queue: %s, %s, %d woken",
			mode("team-a"), mode("team-b"), q.Len())
	}

	// A failed call's event meets the call.
	r.Sent("team-a", "UpdateTable", account, region, "orders", clock.Now())
	if outcome := r.route(context.Background(), b, event("UpdateTable", "orders", func(c *sqstest.Call) { c.ErrorCode = "ValidationException" })); outcome != OutcomeIgnored {
		t.Fatalf("a failed call's event: %s", outcome)
	}
	aMinuteLater()
	if mode("team-a") != ReasonReceiving {
		t.Fatalf("a call whose failed event came back: %s", mode("team-a"))
	}

	// A call that does not come back.
	r.Sent("team-a", "TagResource", account, region, "orders", clock.Now())
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

	// Any event from the account, read by either feed, restores it.
	r.route(context.Background(), b, event("UpdateTimeToLive", "anything", func(c *sqstest.Call) { c.Role, c.Session = "Admin", "console-user" }))
	if mode("team-a") != ReasonReceiving {
		t.Fatalf("after an event from the account: %s", mode("team-a"))
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

package changefeed

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// A feed covers its tables from SQS's first answer until a call fails or
// SQS stops answering for answerWindow; each change of mode is reported
// once.
func TestHealth(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := startingHealth(t0, 0)
	steps := []struct {
		name       string
		do         func(*health) bool
		changed    bool
		mode, why  string
		sinceDelta time.Duration
	}{
		{"starting polls", func(*health) bool { return false }, false, awsv1alpha1.ChangeEventsModePolling, ReasonStarting, 0},
		{"first answer", func(h *health) bool { return h.answered(t0.Add(time.Second)) }, true, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, time.Second},
		{"answers keep it", func(h *health) bool { return h.answered(t0.Add(20 * time.Second)) }, false, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, time.Second},
		{"a check within the window", func(h *health) bool { return h.check(t0.Add(20*time.Second + answerWindow)) }, false, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, time.Second},
		{"no answer past the window", func(h *health) bool { return h.check(t0.Add(21*time.Second + answerWindow)) }, true, awsv1alpha1.ChangeEventsModePolling, ReasonNoAnswer, 21*time.Second + answerWindow},
		{"a failure while polling keeps the mode", func(h *health) bool { return h.failed(t0.Add(2*time.Minute), ReasonAccessDenied, "no") }, false,
			awsv1alpha1.ChangeEventsModePolling, ReasonAccessDenied, 21*time.Second + answerWindow},
		{"an answer heals", func(h *health) bool { return h.answered(t0.Add(3 * time.Minute)) }, true, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, 3 * time.Minute},
		{"a failure fails at once", func(h *health) bool { return h.failed(t0.Add(3*time.Minute+time.Second), ReasonQueueNotFound, "gone") }, true,
			awsv1alpha1.ChangeEventsModePolling, ReasonQueueNotFound, 3*time.Minute + time.Second},
	}
	for _, s := range steps {
		if got := s.do(&h); got != s.changed {
			t.Errorf("%s: changed %v, want %v", s.name, got, s.changed)
		}
		if h.mode != s.mode || h.reason != s.why || !h.since.Equal(t0.Add(s.sinceDelta)) {
			t.Errorf("%s: %s/%s since %s, want %s/%s since %s", s.name, h.mode, h.reason, h.since, s.mode, s.why, t0.Add(s.sinceDelta))
		}
	}
}

// The tables a healthy feed told to wait its safety interval are woken
// when it fails or is stopped, and only those; a table of another identity,
// or asked while the feed was not healthy, is not covered.
func TestAFeedThatFailsWakesTheTablesItCovered(t *testing.T) {
	r := NewRegistry(Options{})
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := r.Tables().Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	f := newFeed("team-a", "fp", nil, "arn:aws:sqs:eu-west-1:111122223333:changes", "", "", 10*time.Minute, 0)
	r.feeds["team-a"] = f
	f.cancel = func() {}
	one, two := types.NamespacedName{Namespace: "a", Name: "one"}, types.NamespacedName{Namespace: "a", Name: "two"}
	if _, ok := r.Cover("team-a", one); ok {
		t.Fatal("a feed that never answered covers a table")
	}
	r.update(f, (*health).answered)
	if d, ok := r.Cover("team-a", one); !ok || d != 10*time.Minute {
		t.Fatalf("a healthy feed: %s, %v", d, ok)
	}
	r.Cover("team-a", two)
	if _, ok := r.Cover("team-b", one); ok {
		t.Fatal("another identity's table is covered")
	}
	if q.Len() != 0 {
		t.Fatalf("%d tables woken before anything failed", q.Len())
	}
	r.update(f, func(h *health, now time.Time) bool { return h.failed(now, ReasonAccessDenied, "no") })
	if got := drain(q); len(got) != 2 || !got[one] || !got[two] {
		t.Fatalf("woken %v, want %v and %v", got, one, two)
	}
	if _, ok := r.Cover("team-a", one); ok {
		t.Fatal("a failed feed covers a table")
	}
	r.update(f, (*health).answered)
	r.Cover("team-a", two)
	r.Stop("team-a")
	if got := drain(q); len(got) != 1 || !got[two] {
		t.Fatalf("stopping the feed woke %v, want %v", got, two)
	}
}

func drain(q workqueue.TypedRateLimitingInterface[reconcile.Request]) map[types.NamespacedName]bool {
	out := map[types.NamespacedName]bool{}
	for q.Len() > 0 {
		req, _ := q.Get()
		out[req.NamespacedName] = true
		q.Done(req)
	}
	return out
}

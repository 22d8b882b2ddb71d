package changefeed

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// coverMargin is how much earlier than a wake-up a change must have been
// made for the look that wake-up queued to be sure to see it: CloudTrail's
// eventTime has a resolution of one second, and AWS's clock and this
// node's may differ by a little.
const coverMargin = 2 * time.Second

// lookSpacing is the least time between two looks that events queue for
// one table. Events about a change still going on arrive within
// coverMargin of it, so no look yet queued covers them: without a spacing
// a burst of them (AWS applying a change, or messages anyone who may send
// to the queue forged) costs a full read each. With it, a burst costs one
// look per spacing and table, the last one after the burst.
const lookSpacing = 3 * time.Second

// route handles one message: the tables its event is about are queued for
// a look, unless a look already queued will see the change. It returns
// the outcome.
func (r *Registry) route(ctx context.Context, f *feed, body string) string {
	c, outcome := parseEvent(body)
	if outcome != "" {
		return outcome
	}
	if echoedCalls[c.Call] {
		// Whatever else becomes of it, it meets the call of Tether's it
		// echoes, if any (echo.go).
		r.hear(f, c)
	}
	if c.ID != "" {
		if _, dup := r.seen.Get(c.ID); dup {
			return OutcomeDuplicate
		}
	}
	objs, err := r.holders(ctx, f, c)
	if err != nil {
		r.log.Info("could not find the objects of a table change; the message stays in the queue", "feed", label(f.identity), "error", err.Error())
		return OutcomeRetried
	}
	if c.ID != "" {
		r.seen.Add(c.ID, struct{}{})
	}
	if len(objs) == 0 {
		return OutcomeForeign
	}
	eventDelay.WithLabelValues(label(f.identity)).Observe(max(0, r.clock.Since(c.At).Seconds()))
	r.noteEvent(f)
	if r.isTether(ctx, c.By) {
		return OutcomeOwn
	}
	woken := r.wake(objs, c.At)
	if woken == 0 {
		return OutcomeCovered
	}
	r.log.V(1).Info("table changed outside Tether", "feed", label(f.identity), "call", c.Call, "table", c.Table,
		"account", c.Account, "region", c.Region, "by", c.By, "objects", len(objs))
	return OutcomeWoken
}

// holder is an object that holds a table.
type holder struct {
	key types.NamespacedName
	uid types.UID
}

// holders are the objects that hold the change's table (by account, region
// and name, from their status) and read their changes from f's queue: a
// queue speaks only for the accounts whose feeds name it.
func (r *Registry) holders(ctx context.Context, f *feed, c change) ([]holder, error) {
	var list awsv1alpha1.DynamoDBTableList
	if err := r.opts.Reader.List(ctx, &list, client.MatchingFields{r.opts.TableNameIndex: c.Table}); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []holder
	for i := range list.Items {
		t := &list.Items[i]
		s := t.Status
		if s.TableName != c.Table || s.Region != c.Region || s.AccountID != c.Account {
			continue
		}
		if own, ok := r.feeds[s.Account]; !ok || own.queue.key() != f.queue.key() {
			continue
		}
		out = append(out, holder{key: types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, uid: t.UID})
	}
	return out, nil
}

// wake queues each object for a look that reads its table afresh, unless
// one is queued to run after the change was made, and returns how many it
// queued. A look goes at once, or lookSpacing after the last one queued
// for the object. An event's time is AWS's word for when the change was
// made, and no later than now: a time in the future is taken as now, so
// that it cannot ask for looks that do not happen yet. The queue is the
// DynamoDBTable controller's own: once a look is queued, it will happen. A
// later look is queued when its time comes, by a timer of the registry's
// (addAt), not with the queue's AddAfter: the queue keeps only the earliest
// of an object's delayed adds, so a look asked for past one still waiting
// would never run, and the changes woken records as covered by it would
// go unseen. (A timer dies with the process; the next start reads every
// table.)
func (r *Registry) wake(objs []holder, at time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now, n := r.clock.Now(), 0
	if at.After(now) {
		at = now
	}
	for _, o := range objs {
		next := now
		if last, ok := r.woken.Get(o.key); ok {
			if at.Add(coverMargin).Before(last.(time.Time)) {
				continue // the look queued last runs after the change
			}
			next = later(now, last.(time.Time).Add(lookSpacing))
		}
		r.woken.Add(o.key, next)
		r.addAt(o, now, next)
		n++
	}
	return n
}

// addAt queues o's look at next, telling Changed then: at once when next
// is now, otherwise when the registry's clock reaches it. Callers hold
// r.mu.
func (r *Registry) addAt(o holder, now, next time.Time) {
	tables, changed := r.tables, r.opts.Changed
	look := func() {
		if changed != nil {
			changed(o.uid)
		}
		tables.Add(reconcile.Request{NamespacedName: o.key})
	}
	if !next.After(now) {
		look()
		return
	}
	r.clock.AfterFunc(next.Sub(now), look)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// isTether says whether the caller is Tether itself: its session in an
// AWSAccount's role, or the operator's own identity.
func (r *Registry) isTether(ctx context.Context, arn string) bool {
	caller, ok := parsePrincipal(arn)
	if !ok {
		return false
	}
	r.mu.Lock()
	operator := r.operator
	r.mu.Unlock()
	if operator != nil && operator.matches(caller) {
		return true
	}
	var accounts awsv1alpha1.AWSAccountList
	if err := r.opts.Reader.List(ctx, &accounts); err != nil {
		return false
	}
	for i := range accounts.Items {
		a := &accounts.Items[i]
		if p, ok := roleSession(a.Spec.AssumeRole.RoleARN, r.opts.SessionName(a)); ok && p.matches(caller) {
			return true
		}
	}
	return false
}

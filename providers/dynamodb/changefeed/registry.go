package changefeed

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// OperatorIdentity names the operator's own identity among the feeds, as
// DynamoDBTable's status.account does.
const OperatorIdentity = ""

// DefaultSafetyInterval is how often a table whose feed is healthy is read
// all the same.
const DefaultSafetyInterval = 30 * time.Minute

// remembered bounds what the registry remembers of past events (their ids,
// for duplicates) and wake-ups (when each table was last woken).
const remembered = 100_000

// checkEvery is how often the registry looks for feeds SQS stopped
// answering or whose calls did not come back. The smallest echo window
// the API accepts (spec.changeEvents.echoWindow, 5s) is this period: a
// shorter one could not be checked.
const checkEvery = 5 * time.Second

// lastEventRefresh is how often at most an account's status is rewritten
// for its last event.
const lastEventRefresh = time.Minute

// Options configure a Registry.
type Options struct {
	// Reader is the manager's cache: DynamoDBTables (with the
	// TableNameIndex field index) and AWSAccounts.
	Reader client.Reader
	// TableNameIndex is the field index of DynamoDBTables by table name.
	TableNameIndex string
	// Config is the AWS configuration of an identity (nil: the operator's
	// own) in a region, for a service (sts, sqs).
	Config func(ctx context.Context, account *awsv1alpha1.AWSAccount, region, service string) (aws.Config, error)
	// SessionName is the session name Tether assumes an AWSAccount's role
	// with, by which its own calls are known.
	SessionName func(*awsv1alpha1.AWSAccount) string
	// Changed, when set, is told of each object woken for a change, as its
	// look is queued (for a look queued later, then, not at the wake-up):
	// that look must read the table afresh, and a look that runs earlier
	// must not use the word up.
	Changed func(types.UID)
	// Operator is the operator's own feed; nil when it has none.
	Operator *OperatorFeed
	Log      logr.Logger
	// Clock defaults to the real one.
	Clock clock.WithTickerAndDelayedExecution
	// MaxRetryDelay caps the wait between the attempts of a feed that
	// fails. Default 1m.
	MaxRetryDelay time.Duration
}

// OperatorFeed is the operator's own feed, from its flags.
type OperatorFeed struct {
	// Queue is the queue's URL or ARN; Region its region when the URL does
	// not say (default: the operator's --aws-region).
	Queue, Region string
	// SafetyInterval defaults to DefaultSafetyInterval.
	SafetyInterval time.Duration
	// EchoWindow defaults to DefaultEchoWindow.
	EchoWindow time.Duration
}

// Registry runs the feeds and answers, for each table, whether a healthy
// feed covers it.
type Registry struct {
	opts          Options
	clock         clock.WithTickerAndDelayedExecution
	log           logr.Logger
	maxRetryDelay time.Duration

	// ready is closed once the DynamoDBTable controller's queue is known:
	// no message is taken off a queue before a table can be queued.
	ready     chan struct{}
	readyOnce sync.Once

	mu       sync.Mutex
	feeds    map[string]*feed
	tables   workqueue.TypedRateLimitingInterface[reconcile.Request]
	accounts workqueue.TypedRateLimitingInterface[reconcile.Request]
	// operator is the operator's own principal, once STS said it.
	operator *principal

	seen  *lru.Cache // event id -> struct{}
	woken *lru.Cache // types.NamespacedName -> when the look last queued for it runs
}

// NewRegistry returns a registry; Start runs it.
func NewRegistry(opts Options) *Registry {
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	maxRetry := opts.MaxRetryDelay
	if maxRetry <= 0 {
		maxRetry = time.Minute
	}
	return &Registry{opts: opts, clock: c, log: opts.Log, maxRetryDelay: maxRetry, ready: make(chan struct{}), feeds: map[string]*feed{},
		seen: lru.New(remembered), woken: lru.New(remembered)}
}

// feed is one queue read under one identity.
type feed struct {
	identity string
	// fingerprint changes with the AWSAccount (a new UID or generation):
	// the feed is then started again.
	fingerprint string
	account     *awsv1alpha1.AWSAccount
	queue       queue
	endpoint    string
	safety      time.Duration
	echoWindow  time.Duration
	// err is why the feed cannot even start (a queue reference that does
	// not parse).
	err    error
	cancel context.CancelFunc

	// Guarded by Registry.mu:
	health health
	// covered are the tables told to wait safety between looks: they are
	// woken when the feed fails.
	covered map[types.NamespacedName]struct{}
	// reportedEvent is health.lastEvent as last shown in the status.
	reportedEvent time.Time
}

// Tables is the source the DynamoDBTable controller watches: a table an
// event is about, and every covered table of a feed that fails.
func (r *Registry) Tables() source.Source {
	return source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		r.mu.Lock()
		r.tables = q
		r.mu.Unlock()
		r.readyOnce.Do(func() { close(r.ready) })
		return nil
	})
}

// Accounts is the source the AWSAccount controller watches: an account
// whose feed changed mode or got its first event in a while.
func (r *Registry) Accounts() source.Source {
	return source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		r.mu.Lock()
		r.accounts = q
		r.mu.Unlock()
		return nil
	})
}

// Start runs the operator's own feed and the check for feeds SQS stopped
// answering, until ctx ends; then every feed stops. It runs on the leader
// only: two managers reading one queue would each take the other's events.
func (r *Registry) Start(ctx context.Context) error {
	if op := r.opts.Operator; op != nil && op.Queue != "" {
		r.mu.Lock()
		r.startLocked(newFeed(OperatorIdentity, "operator", nil, op.Queue, op.Region, "", op.SafetyInterval, op.EchoWindow))
		r.mu.Unlock()
	}
	tick := r.clock.NewTicker(checkEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.mu.Lock()
			for id := range r.feeds {
				r.stopLocked(id)
			}
			r.mu.Unlock()
			return nil
		case <-tick.C():
			r.checkAll()
		}
	}
}

// NeedLeaderElection: see Start.
func (r *Registry) NeedLeaderElection() bool { return true }

// Ensure runs the AWSAccount's feed as its spec says, starting it again
// when the AWSAccount changed, and stops it when it names no queue.
func (r *Registry) Ensure(a *awsv1alpha1.AWSAccount) {
	r.mu.Lock()
	defer r.mu.Unlock()
	events := a.Spec.ChangeEvents
	if events == nil {
		r.stopLocked(a.Name)
		return
	}
	fp := fmt.Sprintf("%s/%d", a.UID, a.Generation)
	if f, ok := r.feeds[a.Name]; ok && f.fingerprint == fp {
		return
	}
	r.stopLocked(a.Name)
	var safety, echoWindow time.Duration
	if events.SafetyInterval != nil {
		safety = events.SafetyInterval.Duration
	}
	if events.EchoWindow != nil {
		echoWindow = events.EchoWindow.Duration
	}
	r.startLocked(newFeed(a.Name, fp, a.DeepCopy(), events.Queue, first(events.Region, a.Spec.Region), events.Endpoint, safety, echoWindow))
}

// Stop stops an AWSAccount's feed (the AWSAccount is gone).
func (r *Registry) Stop(identity string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked(identity)
}

func newFeed(identity, fingerprint string, a *awsv1alpha1.AWSAccount, ref, region, endpoint string, safety, echoWindow time.Duration) *feed {
	if safety <= 0 {
		safety = DefaultSafetyInterval
	}
	if echoWindow <= 0 {
		echoWindow = DefaultEchoWindow
	}
	f := &feed{identity: identity, fingerprint: fingerprint, account: a, endpoint: endpoint, safety: safety, echoWindow: echoWindow,
		health: startingHealth(time.Time{}, echoWindow), covered: map[types.NamespacedName]struct{}{}}
	f.queue, f.err = parseQueue(ref, region)
	return f
}

func (r *Registry) startLocked(f *feed) {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.health = startingHealth(r.clock.Now(), f.echoWindow)
	if f.err != nil {
		f.health.failed(r.clock.Now(), ReasonBadQueue, f.err.Error())
	}
	r.feeds[f.identity] = f
	feedHealthy.WithLabelValues(label(f.identity)).Set(0)
	if f.err == nil {
		go r.run(ctx, f)
	}
}

// stopLocked stops a feed without waiting for its reader, which drops
// whatever it finds out once it is no longer the identity's feed. Tables
// it covered go back to the poll interval at once.
func (r *Registry) stopLocked(identity string) {
	f, ok := r.feeds[identity]
	if !ok {
		return
	}
	f.cancel()
	delete(r.feeds, identity)
	feedHealthy.DeleteLabelValues(label(identity))
	r.wakeLocked(slices.Collect(maps.Keys(f.covered)))
}

// Cover returns how long the table key of identity (an AWSAccount's name,
// OperatorIdentity for the operator's own) may go between looks: its
// feed's safety interval while the feed is healthy, and then it remembers
// key, to wake it should the feed fail. It returns false while no healthy
// feed covers identity: the table is polled.
func (r *Registry) Cover(identity string, key types.NamespacedName) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.feeds[identity]
	if !ok || !f.health.healthy() {
		return 0, false
	}
	f.covered[key] = struct{}{}
	return f.safety, true
}

// Status is the AWSAccount's feed as its status shows it; false when it
// has none.
func (r *Registry) Status(identity string) (awsv1alpha1.ChangeEventsStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.feeds[identity]
	if !ok {
		return awsv1alpha1.ChangeEventsStatus{}, false
	}
	h := f.health
	s := awsv1alpha1.ChangeEventsStatus{Mode: h.mode, Reason: h.reason, Message: h.message, SafetyInterval: f.safety.String()}
	if h.healthy() {
		s.Message = fmt.Sprintf("reading %s: a table changed outside Tether is looked at when its event arrives, "+
			"and each table is read every %s besides (AWS delivers events best effort); "+
			"Tether's own calls come back within the echo window (%s), which shows that events reach the queue", f.queue.URL, f.safety, f.echoWindow)
	}
	if !h.since.IsZero() {
		s.Since = &metav1.Time{Time: h.since.Truncate(time.Second)}
	}
	if !h.lastEvent.IsZero() {
		s.LastEventTime = &metav1.Time{Time: h.lastEvent.Truncate(time.Second)}
	}
	return s, true
}

// update applies a change to a feed's health, unless the feed was stopped
// or replaced since. When the feed stops covering its tables, they are
// woken; when its mode, reason or message changed, its AWSAccount is, so
// that the status says the latest answer's cause (access denied, then the
// queue deleted, is two causes in one mode).
func (r *Registry) update(f *feed, change func(*health, time.Time) bool) {
	r.mu.Lock()
	if r.feeds[f.identity] != f {
		r.mu.Unlock()
		return
	}
	now := r.clock.Now()
	before := f.health
	modeChanged := change(&f.health, now)
	h := f.health
	changed := modeChanged || h.reason != before.reason || h.message != before.message
	if modeChanged && !h.healthy() {
		r.wakeLocked(slices.Collect(maps.Keys(f.covered)))
		clear(f.covered)
	}
	if changed {
		r.wakeAccountLocked(f.identity)
	}
	r.mu.Unlock()
	if !changed {
		return
	}
	healthy := 0.0
	if h.healthy() {
		healthy = 1
	}
	feedHealthy.WithLabelValues(label(f.identity)).Set(healthy)
	r.log.Info("change feed "+h.mode, "feed", label(f.identity), "queue", f.queue.URL, "reason", h.reason, "message", h.message)
}

// Sending tells the feed of identity (an AWSAccount's name,
// OperatorIdentity for the operator's own) that Tether is about to make a
// call about a table (account id, region, name), begun at began; the
// function it returns takes the answer, once: whether AWS accepted the
// call. When the feed's rule sends that call's events, the event of an
// accepted call must come back within the feed's echo window, or the feed
// is not healthy (echo.go); one that arrives while the call is under way
// meets it too. A call whose account is no account id is not expected:
// an event naming such an account is dropped as malformed (event.go), so
// none could meet it.
func (r *Registry) Sending(identity, call, account, region, table string, began time.Time) func(accepted bool) {
	if !echoedCalls[call] || !access.IsAccountID(account) {
		return func(bool) {}
	}
	e := echo{call: call, account: account, region: region, table: table, at: began}
	r.mu.Lock()
	f, ok := r.feeds[identity]
	if ok {
		f.health.begin(e)
	}
	r.mu.Unlock()
	if !ok {
		return func(bool) {}
	}
	return func(accepted bool) {
		r.update(f, func(h *health, now time.Time) bool { return h.callAnswered(now, e, accepted) })
	}
}

// hear tells every feed reading f's queue of the event of a call that
// changed a table: it meets their calls of that table expected back.
func (r *Registry) hear(f *feed, c change) {
	r.mu.Lock()
	var readers []*feed
	for _, g := range r.feeds {
		if g.queue.key() == f.queue.key() {
			readers = append(readers, g)
		}
	}
	r.mu.Unlock()
	for _, g := range readers {
		r.update(g, func(h *health, now time.Time) bool { return h.hear(now, echoOf(c)) })
	}
}

// checkAll fails the feeds SQS stopped answering or whose calls did not
// come back.
func (r *Registry) checkAll() {
	r.mu.Lock()
	feeds := slices.Collect(maps.Values(r.feeds))
	r.mu.Unlock()
	for _, f := range feeds {
		r.update(f, (*health).check)
	}
}

// noteEvent records an event about one of the feed's tables, and wakes the
// account to show it when its status has not shown one for a while.
func (r *Registry) noteEvent(f *feed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.feeds[f.identity] != f {
		return
	}
	now := r.clock.Now()
	f.health.lastEvent = now
	if now.Sub(f.reportedEvent) >= lastEventRefresh {
		f.reportedEvent = now
		r.wakeAccountLocked(f.identity)
	}
}

func (r *Registry) wakeLocked(keys []types.NamespacedName) {
	if r.tables == nil {
		return
	}
	for _, k := range keys {
		r.tables.Add(reconcile.Request{NamespacedName: k})
	}
}

func (r *Registry) wakeAccountLocked(identity string) {
	if r.accounts == nil || identity == OperatorIdentity {
		return
	}
	r.accounts.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: identity}})
}

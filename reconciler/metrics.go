package reconciler

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/tether-dev/tether/providers"
)

// Operator metrics beyond controller-runtime's, served on the manager's
// metrics endpoint.
var (
	providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_provider_calls_total",
		Help: "Provider calls by kind, operation (Observe, Create, Update, Delete) and result (ok, pending, deferred, retry, terminal, error).",
	}, []string{"kind", "operation", "result"})

	driftCorrections = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_drift_corrections_total",
		Help: "External changes made behind Tether's back and put back, by kind.",
	}, []string{"kind"})

	retries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_retries_total",
		Help: "Passes that ended in a retry-after fault, by kind and reason (Throttled, BridgeUnreachable, ...).",
	}, []string{"kind", "reason"})

	deferrals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_deferred_passes_total",
		Help: "Passes that gave their worker back without calling out because a budget shared with other objects was spent, and ran again at their turn, by kind and reason (AccountBudget).",
	}, []string{"kind", "reason"})

	currentBackoff = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tether_backoff_seconds",
		Help: "The longest wait any object of the kind is in because of a repeating fault or error; 0 when none is.",
	}, []string{"kind"})
)

func init() {
	metrics.Registry.MustRegister(providerCalls, driftCorrections, retries, deferrals, currentBackoff)
}

// backoffs tracks each object's current backoff so the gauge can show the
// kind's longest.
type backoffs struct {
	mu    sync.Mutex
	kind  string
	delay map[reconcile.Request]time.Duration
}

func newBackoffs(kind string) *backoffs {
	currentBackoff.WithLabelValues(kind).Set(0)
	return &backoffs{kind: kind, delay: map[reconcile.Request]time.Duration{}}
}

func (b *backoffs) set(req reconcile.Request, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d <= 0 {
		delete(b.delay, req)
	} else {
		b.delay[req] = d
	}
	longest := time.Duration(0)
	for _, d := range b.delay {
		longest = max(longest, d)
	}
	currentBackoff.WithLabelValues(b.kind).Set(longest.Seconds())
}

// countCall records one provider call and its outcome.
func countCall(kind string, p stage, err error) {
	providerCalls.WithLabelValues(kind, string(p), resultOf(err)).Inc()
}

func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
	if _, ok := providers.AsDeferred(err); ok {
		return "deferred"
	}
	if _, pending := providers.AsPending(err); pending {
		return "pending"
	}
	if _, handed := providers.AsHanded(err); handed {
		return "pending"
	}
	if _, ok := providers.AsRetryAfter(err); ok {
		return "retry"
	}
	if _, ok := providers.AsTerminal(err); ok {
		return "terminal"
	}
	return "error"
}

// nextBackoff is the delay the workqueue's exponential limiter gives an
// object after it has already been requeued n times.
func nextBackoff(o Options, n int) time.Duration {
	d := o.MinBackoff
	for range n {
		d *= 2
		if d >= o.MaxBackoff {
			return o.MaxBackoff
		}
	}
	return d
}

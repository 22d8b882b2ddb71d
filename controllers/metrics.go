package controllers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/tether-dev/tether/providers"
)

// Operator metrics beyond controller-runtime's, served on the manager's
// metrics endpoint.
var (
	providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_provider_calls_total",
		Help: "Provider calls by kind, operation (Observe, Create, Update, Delete) and result (ok, pending, retry, terminal, error).",
	}, []string{"kind", "operation", "result"})

	driftCorrections = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_drift_corrections_total",
		Help: "External changes made behind Tether's back and put back, by kind.",
	}, []string{"kind"})
)

func init() {
	metrics.Registry.MustRegister(providerCalls, driftCorrections)
}

// countCall records one provider call and its outcome.
func countCall(kind string, p phase, err error) {
	providerCalls.WithLabelValues(kind, string(p), resultOf(err)).Inc()
}

func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
	if _, ok := providers.AsPending(err); ok {
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

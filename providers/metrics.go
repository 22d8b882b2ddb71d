package providers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Results of an external call, for tether_external_calls_total.
const (
	ResultOK        = "ok"
	ResultThrottled = "throttled"
	ResultError     = "error"
)

// ExternalCallsTotal counts every request an adapter sends outside the cluster
// (each retry attempt counts), so an operator can see what Tether costs the
// backends and when they push back.
var ExternalCallsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "tether_external_calls_total",
	Help: "Requests sent to external systems by provider (dynamodb, hue), operation (DescribeTable, PutLightState, ...) and result (ok, throttled, error).",
}, []string{"provider", "operation", "result"})

func init() {
	metrics.Registry.MustRegister(ExternalCallsTotal)
}

// CountExternalCall records one request to a backend.
func CountExternalCall(provider, operation, result string) {
	ExternalCallsTotal.WithLabelValues(provider, operation, result).Inc()
}

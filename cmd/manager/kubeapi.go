package main

import (
	"k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The manager's client-side limit on its Kubernetes API requests. client-go's
// and controller-runtime's default, 20 per second with a burst of 30, is
// built for controllers of a few objects. Tether writes about five times per
// table it creates (finalizer, create-started annotation, status patches,
// an event; bench figure 8 measures it), so at 20/s it creates at most
// about 4 tables a second, whatever the AWS limiters allow (the first try
// of figure 8 made 3.8 a second). Two accounts' limiters at their defaults
// create about 17 tables a second (25 calls/s each, three calls a table),
// about 85 writes a second: 100 with a burst of 200 lets them, not this
// limit, be the bound once the finalizers are on. The API server's
// priority and fairness protects it beyond that.
const (
	defaultKubeAPIQPS   = 100
	defaultKubeAPIBurst = 200
)

type kubeAPILimits struct {
	QPS   float64
	Burst int
}

// apply sets the limits on the manager's REST config, and turns on
// rest_client_rate_limiter_duration_seconds, so that time lost to this
// limit shows on the metrics endpoint.
func (l kubeAPILimits) apply(cfg *rest.Config) *rest.Config {
	cfg.QPS = float32(l.QPS)
	cfg.Burst = l.Burst
	ctrlmetrics.RegisterRESTClientMetrics(ctrlmetrics.MetricRateLimiterLatency)
	return cfg
}

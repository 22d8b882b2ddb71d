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
// about 85 writes a second. A burst of HueLight changes costs one status
// write per HueLight (500 over 10 bridges of 50, bench figure 10, wanted
// Ready in 3 s), arriving within a second or two of one another, often
// right after the writes of the burst before: at 100 a second with a burst
// of 200 the figure's writes waited 50 s in all for this limit and took
// 6.5 s (the limit's rate was the bound); at 300 with a burst of 600 they
// waited 0.005 s and it took 4.7 s (the API server's own pace was the
// bound). The API server's priority and fairness, not this limit, is what
// protects the server: it queues or rejects (429, which client-go retries)
// what exceeds the manager's share.
const (
	defaultKubeAPIQPS   = 300
	defaultKubeAPIBurst = 600
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

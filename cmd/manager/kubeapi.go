package main

import (
	"k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The manager's client-side limit on its Kubernetes API requests. client-go's
// and controller-runtime's default, 20 per second with a burst of 30, is
// built for controllers of a few objects. Tether writes about five times per
// table it creates (finalizer, create-started annotation, status patches,
// an event), so that default would bound table creation well below what
// the AWS limiters allow; and a burst of HueLight changes costs one status
// write per HueLight, arriving within a second or two of one another, often
// right after the writes of the burst before. The limit is set so that the
// API server's own pace, not this limit, bounds such bursts (make bench
// measures it, figures 8 and 10). The API server's priority and fairness,
// not this limit, is what protects the server: it queues or rejects (429,
// which client-go retries) what exceeds the manager's share.
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

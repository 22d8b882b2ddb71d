package changefeed

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	eventsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tether_dynamodb_change_events_total",
		Help: "Messages read from DynamoDB change feeds, by feed (AWSAccount, or operator) and outcome (woken, covered, own, ignored, duplicate, foreign, malformed, retried).",
	}, []string{"feed", "outcome"})
	feedHealthy = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tether_dynamodb_change_feed_healthy",
		Help: "1 while a DynamoDB change feed is read without trouble and Tether's own calls come back through it (its tables are read every safety interval), 0 while its tables are polled.",
	}, []string{"feed"})
	eventDelay = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "tether_dynamodb_change_event_delay_seconds",
		Help:    "Time from a DynamoDB call (CloudTrail's eventTime) to Tether reading its event from the queue.",
		Buckets: []float64{1, 2, 5, 10, 30, 60, 120, 300, 600, 1800},
	}, []string{"feed"})
)

func init() { metrics.Registry.MustRegister(eventsTotal, feedHealthy, eventDelay) }

// label names a feed in metrics and logs.
func label(identity string) string {
	if identity == OperatorIdentity {
		return "operator"
	}
	return identity
}

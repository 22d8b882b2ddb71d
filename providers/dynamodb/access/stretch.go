package access

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// An account's limiter in a region (25 calls/s by default) is shared by all
// its tables there. Each table asks for one DescribeTable per poll interval
// and its secondary reads; when together they ask for more than the
// limiter allows, every table is looked at less often than its interval,
// by the same factor: the stretch. Tether cannot hold the interval then
// (there is no batch DescribeTable), so it says so: the stretch per account
// and region as metrics, and per table in status.effectivePollInterval and
// the Ready message (the adapter's demand.go).
var (
	pollStretch = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tether_dynamodb_poll_stretch",
		Help: "How many times longer than their poll interval the DynamoDBTables of an account and region go between looks, because their limiter cannot serve them all (1: the interval holds).",
	}, []string{"account", "region"})
	callsAsked = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tether_dynamodb_calls_asked_per_second",
		Help: "DynamoDB calls per second the DynamoDBTables of an account and region ask for when polled at their interval (polls and secondary reads), against the limiter's --dynamodb-requests-per-second.",
	}, []string{"account", "region"})
	tablesWatched = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tether_dynamodb_tables",
		Help: "DynamoDBTables watched per account and region.",
	}, []string{"account", "region"})
)

func init() { metrics.Registry.MustRegister(pollStretch, callsAsked, tablesWatched) }

// demand is what the tables of each account and region ask of their
// limiter (rps calls per second), in calls per second. The Clients' lock
// guards it.
type demand struct {
	rps   float64
	byKey map[string]*accountDemand // account|region
}

// accountDemand is what the tables of one account and region ask of their
// limiter, in calls per second.
type accountDemand struct {
	account, region string
	perObject       map[types.UID]float64
	total           float64
}

// set records one object's calls per second (moving it when its account or
// region changed) and returns its account and region's stretch.
func (d *demand) set(account, region string, uid types.UID, perSecond float64) float64 {
	key := account + "|" + region
	for k, a := range d.byKey {
		if _, ok := a.perObject[uid]; ok && k != key {
			d.remove(a, uid)
		}
	}
	a, ok := d.byKey[key]
	if !ok {
		a = &accountDemand{account: account, region: region, perObject: map[types.UID]float64{}}
		d.byKey[key] = a
	}
	a.total += perSecond - a.perObject[uid]
	a.perObject[uid] = perSecond
	return d.publish(a)
}

// drop forgets an object.
func (d *demand) drop(uid types.UID) {
	for _, a := range d.byKey {
		if _, ok := a.perObject[uid]; ok {
			d.remove(a, uid)
		}
	}
}

func (d *demand) remove(a *accountDemand, uid types.UID) {
	a.total -= a.perObject[uid]
	delete(a.perObject, uid)
	if len(a.perObject) == 0 {
		a.total = 0
	}
	d.publish(a)
}

// publish updates the metrics of an account and region and returns its
// stretch.
func (d *demand) publish(a *accountDemand) float64 {
	stretch := max(1, a.total/d.rps)
	pollStretch.WithLabelValues(a.account, a.region).Set(stretch)
	callsAsked.WithLabelValues(a.account, a.region).Set(a.total)
	tablesWatched.WithLabelValues(a.account, a.region).Set(float64(len(a.perObject)))
	return stretch
}

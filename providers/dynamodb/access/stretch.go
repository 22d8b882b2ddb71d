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

// accountDemand is what the tables of one account and region ask of their
// limiter, in calls per second.
type accountDemand struct {
	account, region string
	perObject       map[types.UID]float64
	total           float64
}

// SetDemand records one object's calls per second (moving it when its
// account or region changed) and returns its account and region's stretch.
func (c *Clients) SetDemand(ep *Endpoint, uid types.UID, perSecond float64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := ep.Account + "|" + ep.Region
	for k, d := range c.demand {
		if _, ok := d.perObject[uid]; ok && k != key {
			c.removeDemandLocked(d, uid)
		}
	}
	d, ok := c.demand[key]
	if !ok {
		d = &accountDemand{account: ep.Account, region: ep.Region, perObject: map[types.UID]float64{}}
		c.demand[key] = d
	}
	d.total += perSecond - d.perObject[uid]
	d.perObject[uid] = perSecond
	return c.publishLocked(d)
}

// DropDemand forgets an object (deleted, released, paused).
func (c *Clients) DropDemand(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropTurnLocked(uid)
	for _, d := range c.demand {
		if _, ok := d.perObject[uid]; ok {
			c.removeDemandLocked(d, uid)
		}
	}
}

func (c *Clients) removeDemandLocked(d *accountDemand, uid types.UID) {
	d.total -= d.perObject[uid]
	delete(d.perObject, uid)
	if len(d.perObject) == 0 {
		d.total = 0
	}
	c.publishLocked(d)
}

// publishLocked updates the metrics of an account and region and returns
// its stretch.
func (c *Clients) publishLocked(d *accountDemand) float64 {
	stretch := max(1, d.total/c.opts.RequestsPerSecond)
	pollStretch.WithLabelValues(d.account, d.region).Set(stretch)
	callsAsked.WithLabelValues(d.account, d.region).Set(d.total)
	tablesWatched.WithLabelValues(d.account, d.region).Set(float64(len(d.perObject)))
	return stretch
}

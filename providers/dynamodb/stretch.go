package dynamodb

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// An account's limiter in a region (25 calls/s by default) is shared by all
// its tables there. Each table asks for one DescribeTable per poll interval
// and its secondary reads; when together they ask for more than the
// limiter allows, every table is looked at less often than its interval,
// by the same factor: the stretch. Tether cannot hold the interval then
// (there is no batch DescribeTable), so it says so: the stretch per account
// and region as metrics, and per table in status.effectivePollInterval and
// the Ready message.
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

// stretchShown is the least stretch reported on a table: below it the
// limiter's burst and the poll jitter blur the difference.
const stretchShown = 1.1

// stretchStep rounds an effective interval up, so that the status does not
// change each time a table comes or goes.
const stretchStep = 10 * time.Second

// accountDemand is what the tables of one account and region ask of their
// limiter, in calls per second.
type accountDemand struct {
	account, region string
	perObject       map[types.UID]float64
	total           float64
}

// noteDemand records what obj asks of its account and region's limiter and
// shows in its status how often it is really looked at.
func (p *Provider) noteDemand(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) {
	poll := p.lookInterval(obj)
	stretch := p.clients.setDemand(ep, obj.UID, p.callsPerSecond(ep, obj, poll))
	obj.Status.EffectivePollInterval = ""
	if stretch >= stretchShown {
		effective := time.Duration(math.Ceil(float64(poll)*stretch/float64(stretchStep))) * stretchStep
		obj.Status.EffectivePollInterval = effective.String()
	}
}

// callsPerSecond is what one table asks for: a DescribeTable per look, and
// each secondary read the spec uses per secondary-read interval (or per
// look, when looks are further apart).
func (p *Provider) callsPerSecond(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, poll time.Duration) float64 {
	reads := 0
	for _, used := range []bool{specUses(&obj.Spec, featureTTL), specUses(&obj.Spec, featurePITR), p.usesTags(ep, obj)} {
		if used {
			reads++
		}
	}
	// Secondary answers are reused between looks up to their interval: a
	// table looked at less often reads them at each look.
	secondary := max(p.opts.SecondaryReadInterval, poll)
	return 1/poll.Seconds() + float64(reads)/secondary.Seconds()
}

// setDemand records one object's calls per second (moving it when its
// account or region changed) and returns its account and region's stretch.
func (c *Clients) setDemand(ep *endpoint, uid types.UID, perSecond float64) float64 {
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

// dropDemand forgets an object (deleted, released, paused).
func (c *Clients) dropDemand(uid types.UID) {
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

// stretchNote is the Ready message's note for a table whose limiter cannot
// look at it at its interval.
func (p *Provider) stretchNote(obj *awsv1alpha1.DynamoDBTable) string {
	if obj.Status.EffectivePollInterval == "" {
		return ""
	}
	poll := p.lookInterval(obj)
	return fmt.Sprintf("looked at about every %s instead of every %s: the tables of this account in %s ask for more calls than its limiter allows "+
		"(--dynamodb-requests-per-second %g); see tether_dynamodb_poll_stretch", obj.Status.EffectivePollInterval, poll, obj.Status.Region, p.clients.opts.RequestsPerSecond)
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	out := ""
	for _, n := range notes {
		if n == "" {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += n
	}
	return out
}

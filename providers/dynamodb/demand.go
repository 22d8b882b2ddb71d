package dynamodb

import (
	"fmt"
	"math"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// What each table asks of its account and region's limiter, and how often
// it is really looked at when the tables there ask for more than the
// limiter allows (the stretch, access/stretch.go): shown per table in
// status.effectivePollInterval and the Ready message.

// stretchShown is the least stretch reported on a table: below it the
// limiter's burst and the poll jitter blur the difference.
const stretchShown = 1.1

// stretchStep rounds an effective interval up, so that the status does not
// change each time a table comes or goes.
const stretchStep = 10 * time.Second

// noteDemand records what obj asks of its account and region's limiter and
// shows in its status how often it is really looked at.
func (p *Provider) noteDemand(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) {
	poll := p.lookInterval(obj)
	stretch := p.clients.SetDemand(ep, obj.UID, p.callsPerSecond(ep, obj, poll))
	obj.Status.EffectivePollInterval = ""
	if stretch >= stretchShown {
		effective := time.Duration(math.Ceil(float64(poll)*stretch/float64(stretchStep))) * stretchStep
		obj.Status.EffectivePollInterval = effective.String()
	}
}

// callsPerSecond is what one table asks for: a DescribeTable per look, and
// each secondary read the spec uses per secondary-read interval (or per
// look, when looks are further apart).
func (p *Provider) callsPerSecond(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, poll time.Duration) float64 {
	reads := 0
	for _, used := range []bool{plan.Uses(&obj.Spec, plan.FeatureTTL), plan.Uses(&obj.Spec, plan.FeaturePITR), p.usesTags(ep, obj)} {
		if used {
			reads++
		}
	}
	// Secondary answers are reused between looks up to their interval: a
	// table looked at less often reads them at each look.
	secondary := max(p.opts.SecondaryReadInterval, poll)
	return 1/poll.Seconds() + float64(reads)/secondary.Seconds()
}

// stretchNote is the Ready message's note for a table whose limiter cannot
// look at it at its interval.
func (p *Provider) stretchNote(obj *awsv1alpha1.DynamoDBTable) string {
	if obj.Status.EffectivePollInterval == "" {
		return ""
	}
	poll := p.lookInterval(obj)
	return fmt.Sprintf("looked at about every %s instead of every %s: the tables of this account in %s ask for more calls than its limiter allows "+
		"(--dynamodb-requests-per-second %g); see tether_dynamodb_poll_stretch", obj.Status.EffectivePollInterval, poll, obj.Status.Region, p.clients.RequestsPerSecond())
}

// lookInterval is how long obj goes between looks when nothing happens.
func (p *Provider) lookInterval(obj *awsv1alpha1.DynamoDBTable) time.Duration {
	if d, ok := p.ResyncInterval(obj); ok {
		return d
	}
	poll, _ := commonv1alpha1.PollInterval(obj.Annotations, p.opts.PollInterval)
	return poll
}

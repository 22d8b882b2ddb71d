package dynamodb

import (
	"fmt"
	"strings"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// How the adapter waits for AWS: for a call it accepted to show in reads
// (inflight.go), and for the hour between two UpdateTimeToLive calls.

// stepFlight is the record of a plan step AWS accepted.
func (p *Provider) stepFlight(step plan.Step, now time.Time) flight {
	f := flight{call: step.Description, subject: stepSubject(step), at: now, settle: p.opts.SettleWindow}
	if step.Kind == plan.StepTimeToLive && f.settle > 0 {
		f.settle = ttlSpacing
	}
	return f
}

// tableFlight is the record of a CreateTable or DeleteTable AWS accepted.
func (p *Provider) tableFlight(call string, now time.Time) flight {
	return flight{call: call, subject: callCreateTable, at: now, settle: p.opts.SettleWindow}
}

// heldByFlight says whether the plan's next step waits for the same call,
// which AWS accepted and no read has shown yet, within its settle window.
func (p *Provider) heldByFlight(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, pl *plan.Plan, now time.Time) (awsWait, bool) {
	if len(pl.Steps) == 0 || pl.Holds(pl.Steps[0]) != "" {
		return awsWait{}, false
	}
	step, name := pl.Steps[0], obj.ResolvedTableName()
	if f, ok := p.flights.inFlight(ep.TableKey(name), step.Description, now); ok {
		// The next look reads the feature again, not the answer kept
		// from before the call.
		p.memoryOf(obj).readAgain(plan.FeatureOf(step.Kind))
		return f.notYetSeen(providers.ReasonUpdating, fmt.Sprintf("%q", step.Description), now), true
	}
	return awsWait{}, false
}

// waitFor turns a wait for AWS into the observation of one: looked at
// again soon at first, then less often the longer the call is gone
// unseen (half that time), never later than the wait ends or than the
// kind's poll interval.
func (p *Provider) waitFor(w awsWait) providers.Observation {
	now := time.Now()
	next := max(p.opts.TransitionPoll, now.Sub(w.since)/2)
	next = min(next, p.opts.PollInterval, max(w.until.Sub(now), time.Second))
	return providers.Waiting(providers.Wait{Reason: w.reason, Message: w.message, For: next})
}

// ttlRefused is the wait after AWS refused an UpdateTimeToLive because the
// table's TTL changed less than an hour ago ("Time to live has been
// modified multiple times within a fixed interval", as AWS words it:
// aws/aws-cdk#13720): until an hour after Tether's last one, or an hour
// from now when the last change was someone else's.
func (p *Provider) ttlRefused(ep *access.Endpoint, name string, step plan.Step, err error, now time.Time) (*providers.PendingError, bool) {
	if step.Kind != plan.StepTimeToLive || access.ErrorCode(err) != "ValidationException" || !strings.Contains(err.Error(), "multiple times") {
		return nil, false
	}
	until := now.Add(ttlSpacing)
	if f, ok := p.flights.lastOf(ep.TableKey(name), stepSubject(step)); ok && f.at.Add(ttlSpacing).After(now) {
		until = f.at.Add(ttlSpacing)
	}
	return &providers.PendingError{Reason: providers.ReasonUpdating, For: min(until.Sub(now), p.opts.PollInterval), Message: fmt.Sprintf(
		"AWS takes one UpdateTimeToLive per table an hour and refused %q (%v): Tether sends it again at %s",
		step.Description, access.Stable(err), until.UTC().Format(time.RFC3339))}, true
}

// transient is a wait for a transition AWS finishes by itself (CREATING,
// UPDATING, DELETING): nothing is sent meanwhile.
func (p *Provider) transient(reason, message string) providers.Observation {
	return providers.Waiting(providers.Wait{Reason: reason, Message: message, For: p.opts.TransitionPoll})
}

// notAvailable is a table that matches the spec and cannot be used as it
// should, for a reason Tether cannot fix by a write.
func notAvailable(reason, message string, recheck time.Duration) providers.Observation {
	obs := providers.Matches()
	obs.Available, obs.Reason, obs.Message, obs.NextLook = false, reason, message, recheck
	return obs
}

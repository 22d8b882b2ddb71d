package dynamodb

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// AWS accepts a control-plane call before its reads show it: DescribeTable
// "uses an eventually consistent query" and, right after CreateTable,
// "might return a ResourceNotFoundException ... Wait for a few seconds, and
// then try the DescribeTable request again" (API DescribeTable);
// ListTagsOfResource "will only reflect the changes after a few seconds"
// (API TagResource); GetResourcePolicy may answer the previous policy (API
// GetResourcePolicy). A read that does not show a call Tether made a moment
// ago is late, not drift, and not a reason to make the call again.
//
// So Tether keeps its own record of each call AWS accepted, by table:
// in memory, never from anything a tenant can write. Until a read shows
// the call, and within its settle window, a read that still asks for the
// same call is waited out (the call is in flight). Once a read has shown
// it, or after the window, the read decides, as any read does: a change
// made from outside is put back at once, and the stall breaker still
// bounds what is sent again. A refusal that
// says a call Tether made is already done (alreadyDone) means the read was
// late: read again. docs/dynamodb.md ("AWS's pace") lists the windows.

// settleWindow is how long a call AWS accepted may go unseen by reads.
// AWS's words are "a few seconds"; a minute is ten times that and more,
// and bounds how late Tether corrects a change someone else made to the
// same thing within that minute.
const settleWindow = time.Minute

// ttlSpacing is the hour AWS takes between two UpdateTimeToLive calls of a
// table: "It can take up to one hour for the change to fully process. Any
// additional UpdateTimeToLive calls for the same table during this one hour
// duration result in a ValidationException" (API UpdateTimeToLive). An
// UpdateTimeToLive Tether made is in flight that long, and one refused so
// waits out the hour after the last one (ttlRefused).
const ttlSpacing = time.Hour

// Calls that are not plan steps.
const (
	callCreateTable = "CreateTable"
	callDeleteTable = "DeleteTable"
)

// flight is one call AWS accepted.
type flight struct {
	// call is what was sent: callCreateTable, callDeleteTable, or a
	// plan step's description, which says the call and its values.
	call string
	// subject is what the call changes: a later accepted call of the same
	// subject replaces it (setting a value back is not the earlier call
	// in flight).
	subject string
	at      time.Time
	// seen is set once a read showed the call (its plan no longer asks
	// for it): it is no longer in flight.
	seen bool
	// settle is how long the call may go unseen.
	settle time.Duration
}

// flights are a table's accepted calls, the newest per subject.
type flights []flight

// forgetAfter bounds how long a record is kept: the longest window.
const forgetAfter = ttlSpacing

// accepted records a call AWS accepted for the table name at ep.
func (p *Provider) accepted(ep *endpoint, name string, f flight) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := ep.tableKey(name)
	kept := flights{f}
	for _, old := range p.flights[key] {
		if old.subject != f.subject && time.Since(old.at) < forgetAfter {
			kept = append(kept, old)
		}
	}
	p.flights[key] = kept
}

// inFlight is the record of call within its settle window, if any.
func (p *Provider) inFlight(ep *endpoint, name, call string, now time.Time) (flight, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.flights[ep.tableKey(name)] {
		if f.call == call && !f.seen && now.Sub(f.at) < f.settle {
			return f, true
		}
	}
	return flight{}, false
}

// seenIn marks the table's calls that a read shows: the table exists (its
// CreateTable), and the plan from that read no longer asks for them.
func (p *Provider) seenIn(ep *endpoint, name string, pl *Plan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, f := range p.flights[ep.tableKey(name)] {
		if f.call != callDeleteTable && !slices.ContainsFunc(pl.Steps, func(s Step) bool { return s.Description == f.call }) {
			p.flights[ep.tableKey(name)][i].seen = true
		}
	}
}

// lastOf is the newest record of subject, if any.
func (p *Provider) lastOf(ep *endpoint, name, subject string) (flight, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.flights[ep.tableKey(name)] {
		if f.subject == subject {
			return f, true
		}
	}
	return flight{}, false
}

// unseen says whether a call of subject is in flight: accepted within its
// settle window, and not shown by a read yet.
func (p *Provider) unseen(ep *endpoint, name, subject string, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.flights[ep.tableKey(name)] {
		if f.subject == subject && !f.seen && now.Sub(f.at) < f.settle {
			return true
		}
	}
	return false
}

// sentBefore says whether Tether made call for the table within the last
// forgetAfter.
func (p *Provider) sentBefore(ep *endpoint, name, call string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.flights[ep.tableKey(name)] {
		if f.call == call {
			return true
		}
	}
	return false
}

// forgetFlights drops a table's records: it is gone, or no longer managed.
func (p *Provider) forgetFlights(ep *endpoint, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.flights, ep.tableKey(name))
}

// stepFlight is the record of a plan step AWS accepted.
func (p *Provider) stepFlight(step Step, now time.Time) flight {
	f := flight{call: step.Description, subject: stepSubject(step), at: now, settle: p.opts.SettleWindow}
	if step.Kind == StepTimeToLive && f.settle > 0 {
		f.settle = ttlSpacing
	}
	return f
}

// tableFlight is the record of a CreateTable or DeleteTable AWS accepted.
func (p *Provider) tableFlight(call string, now time.Time) flight {
	return flight{call: call, subject: callCreateTable, at: now, settle: p.opts.SettleWindow}
}

// stepSubject is what a step changes: its kind, and the index or replica
// for a step on one.
func stepSubject(step Step) string {
	subject := string(step.Kind)
	if part := stepPart(step); part != "" {
		subject += ":" + part
	}
	return subject
}

// stepPart is the index or replica Region a step changes, "" for the
// table.
func stepPart(step Step) string {
	if step.Table != nil {
		for _, u := range step.Table.ReplicaUpdates {
			switch {
			case u.Create != nil:
				return aws.ToString(u.Create.RegionName)
			case u.Delete != nil:
				return aws.ToString(u.Delete.RegionName)
			case u.Update != nil:
				return aws.ToString(u.Update.RegionName)
			}
		}
		for _, u := range step.Table.GlobalSecondaryIndexUpdates {
			switch {
			case u.Create != nil:
				return aws.ToString(u.Create.IndexName)
			case u.Delete != nil:
				return aws.ToString(u.Delete.IndexName)
			case u.Update != nil:
				return aws.ToString(u.Update.IndexName)
			}
		}
	}
	if step.Insights != nil {
		return aws.ToString(step.Insights.IndexName)
	}
	return ""
}

// notYetSeen is the wait for a call AWS accepted that the last read does
// not show yet.
func (p *Provider) notYetSeen(f flight, reason, what string, now time.Time) awsWait {
	return awsWait{reason: reason, since: f.at, until: f.at.Add(f.settle), message: fmt.Sprintf(
		"DynamoDB accepted %s %s ago and its reads do not show it yet (they are eventually consistent): "+
			"Tether waits for them and does not send it again before %s", what, now.Sub(f.at).Round(time.Second),
		f.at.Add(f.settle).UTC().Format(time.RFC3339))}
}

// awsWait is a wait for a call made at since, that ends by until.
type awsWait struct {
	reason, message string
	since, until    time.Time
}

// alreadyDone says whether AWS refused a step Tether sent before because
// what it asks for is already so, which means the read that planned it was
// late. The words are DynamoDB's own (DynamoDB Local, AWS's implementation,
// answers each of them; "which already exists" is AWS's answer to an index
// created again, reported in issue reports of UpdateTable users), and the
// model's for warm throughput ("will not change").
func alreadyDone(step Step, err error) bool {
	code, msg := errorCode(err), err.Error()
	if code == "ResourceNotFoundException" && step.Kind == StepDeleteIndex {
		return true // the index is gone already
	}
	if code != "ValidationException" {
		return false
	}
	for _, words := range []string{
		"equals the current value",      // the same throughput or billing mode
		"which already exists",          // an index created again
		"already has an enabled stream", // a stream enabled again
		"has no stream to disable",      // a stream disabled again
		"is already enabled",            // TimeToLive
		"is already disabled",           // TimeToLive
		"will not change",               // warm throughput, throughput
	} {
		if strings.Contains(msg, words) {
			return true
		}
	}
	return false
}

// stepGate says what AWS is still doing that a step must wait for, by
// kind of step.
type stepGate struct {
	// all holds every step: the table is not ACTIVE, an index is being
	// deleted or allocated, a replica is changing.
	all string
	// indexes holds index creates and deletes only: an index backfills.
	// "After the index begins backfilling, you can use UpdateTable to
	// perform other operations" (API UpdateTable), but not another index
	// create or delete, which AWS refuses with "Only 1 online index can be
	// created or deleted simultaneously per table" (LimitExceededException,
	// reported in architect/architect#334).
	indexes string
}

// gate reads what holds the steps of a plan from the table as read.
func (t *table) gate() stepGate {
	var g stepGate
	if t.Status != string(types.TableStatusActive) {
		g.all = fmt.Sprintf("table is %s", t.Status)
		return g
	}
	for _, ix := range t.GSIs {
		switch {
		case ix.Status == "" || ix.Status == string(types.IndexStatusActive):
		case ix.Status == string(types.IndexStatusCreating) && ix.Backfilling:
			if g.indexes == "" {
				g.indexes = fmt.Sprintf("index %s is backfilling", ix.Name)
			}
		default:
			g.all = fmt.Sprintf("index %s is %s", ix.Name, ix.Status)
			return g
		}
	}
	g.all = replicasBusy(t.Replicas)
	return g
}

// holds says what step waits for, "" when it may go now.
func (g stepGate) holds(step Step) string {
	if g.all != "" {
		return g.all
	}
	if step.Kind == StepCreateIndex || step.Kind == StepDeleteIndex {
		return g.indexes
	}
	return ""
}

// heldByFlight says whether the plan's next step waits for the same call,
// which AWS accepted and no read has shown yet, within its settle window.
func (p *Provider) heldByFlight(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, pl *Plan, now time.Time) (awsWait, bool) {
	if len(pl.Steps) == 0 || pl.gate.holds(pl.Steps[0]) != "" {
		return awsWait{}, false
	}
	step, name := pl.Steps[0], obj.ResolvedTableName()
	if f, ok := p.inFlight(ep, name, step.Description, now); ok {
		// The next look reads the feature again, not the answer kept
		// from before the call.
		delete(p.memoryOf(obj).secondaryAt, featureOf(step.Kind))
		return p.notYetSeen(f, providers.ReasonUpdating, fmt.Sprintf("%q", step.Description), now), true
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
func (p *Provider) ttlRefused(ep *endpoint, name string, step Step, err error, now time.Time) (*providers.Wait, bool) {
	if step.Kind != StepTimeToLive || errorCode(err) != "ValidationException" || !strings.Contains(err.Error(), "multiple times") {
		return nil, false
	}
	until := now.Add(ttlSpacing)
	if f, ok := p.lastOf(ep, name, stepSubject(step)); ok && f.at.Add(ttlSpacing).After(now) {
		until = f.at.Add(ttlSpacing)
	}
	return &providers.Wait{Reason: providers.ReasonUpdating, For: min(until.Sub(now), p.opts.PollInterval), Message: fmt.Sprintf(
		"AWS takes one UpdateTimeToLive per table an hour and refused %q (%v): Tether sends it again at %s",
		step.Description, stable(err), until.UTC().Format(time.RFC3339))}, true
}

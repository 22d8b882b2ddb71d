package dynamodb

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
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

// flightLog is the record of the calls AWS accepted, by table key
// (account, region, name).
type flightLog struct {
	mu      sync.Mutex
	byTable map[string]flights
}

// accepted records a call AWS accepted for the table key.
func (l *flightLog) accepted(key string, f flight) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := flights{f}
	for _, old := range l.byTable[key] {
		if old.subject != f.subject && time.Since(old.at) < forgetAfter {
			kept = append(kept, old)
		}
	}
	if l.byTable == nil {
		l.byTable = map[string]flights{}
	}
	l.byTable[key] = kept
}

// inFlight is the record of call within its settle window, if any.
func (l *flightLog) inFlight(key, call string, now time.Time) (flight, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.byTable[key] {
		if f.call == call && !f.seen && now.Sub(f.at) < f.settle {
			return f, true
		}
	}
	return flight{}, false
}

// seenIn marks the table's calls that a read shows: the table exists (its
// CreateTable), and the plan from that read no longer asks for them.
func (l *flightLog) seenIn(key string, pl *plan.Plan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, f := range l.byTable[key] {
		if f.call != callDeleteTable && !slices.ContainsFunc(pl.Steps, func(s plan.Step) bool { return s.Description == f.call }) {
			l.byTable[key][i].seen = true
		}
	}
}

// lastOf is the newest record of subject, if any.
func (l *flightLog) lastOf(key, subject string) (flight, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.byTable[key] {
		if f.subject == subject {
			return f, true
		}
	}
	return flight{}, false
}

// unseen says whether a call of subject is in flight: accepted within its
// settle window, and not shown by a read yet.
func (l *flightLog) unseen(key, subject string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.byTable[key] {
		if f.subject == subject && !f.seen && now.Sub(f.at) < f.settle {
			return true
		}
	}
	return false
}

// sentBefore says whether Tether made call for the table within the last
// forgetAfter.
func (l *flightLog) sentBefore(key, call string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.byTable[key] {
		if f.call == call {
			return true
		}
	}
	return false
}

// forget drops a table's records: it is gone, or no longer managed.
func (l *flightLog) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byTable, key)
}

// stepSubject is what a step changes: its kind, and the index or replica
// for a step on one.
func stepSubject(step plan.Step) string {
	subject := string(step.Kind)
	if part := stepPart(step); part != "" {
		subject += ":" + part
	}
	return subject
}

// stepPart is the index or replica Region a step changes, "" for the
// table.
func stepPart(step plan.Step) string {
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
	if index := plan.VectorIndexOf(step); index != "" {
		return index
	}
	if step.Insights != nil {
		return aws.ToString(step.Insights.IndexName)
	}
	switch {
	case step.KinesisEnable != nil:
		return aws.ToString(step.KinesisEnable.StreamArn)
	case step.KinesisUpdate != nil:
		return aws.ToString(step.KinesisUpdate.StreamArn)
	case step.KinesisDisable != nil:
		return aws.ToString(step.KinesisDisable.StreamArn)
	}
	return ""
}

// notYetSeen is the wait for a call AWS accepted that the last read does
// not show yet.
func (f flight) notYetSeen(reason, what string, now time.Time) awsWait {
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
func alreadyDone(step plan.Step, err error) bool {
	code, msg := access.ErrorCode(err), err.Error()
	if code == "ResourceNotFoundException" && step.Kind == plan.StepDeleteIndex {
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
		"Precision is already set",      // a Kinesis destination's precision (ACK, docs/api-quirks/table-policy-kinesis-autoscaling.md)
	} {
		if strings.Contains(msg, words) {
			return true
		}
	}
	return false
}

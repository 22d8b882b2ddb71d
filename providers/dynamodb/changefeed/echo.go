package changefeed

import (
	"fmt"
	"time"
)

// DefaultEchoWindow is how long one of Tether's own calls may take to come
// back through its feed before the feed counts as not delivering.
//
// AWS documents no bound on how long CloudTrail and EventBridge take; for
// trails, CloudTrail's user guide says it delivers logs "within an average
// of about 5 minutes of an API call", not guaranteed ("Getting and viewing
// your CloudTrail log files"). Three times that spares a feed that is only
// slow, and still finds one whose rule was deleted within a quarter of an
// hour: half the default safety interval, so its tables go back to the
// poll interval before a change made outside Tether could wait a whole
// safety interval unseen.
const DefaultEchoWindow = 15 * time.Minute

// echoedCalls are the DynamoDB calls whose events the rule in
// docs/accounts.md sends to the queue (its eventName list): Tether expects
// those of its own calls back, and no other.
var echoedCalls = map[string]bool{
	"CreateTable": true, "UpdateTable": true, "DeleteTable": true, "UpdateTimeToLive": true,
	"UpdateContinuousBackups": true, "TagResource": true, "UntagResource": true, "PutResourcePolicy": true,
	"DeleteResourcePolicy": true, "UpdateContributorInsights": true, "UpdateKinesisStreamingDestination": true,
	"EnableKinesisStreamingDestination": true, "DisableKinesisStreamingDestination": true,
	"UpdateTableReplicaAutoScaling": true, "RestoreTableFromBackup": true, "RestoreTableToPointInTime": true,
	"ImportTable": true,
}

// echo is one of Tether's own calls, which CloudTrail records and the
// feed's rule should deliver back as an event: proof that events of the
// account reach the queue. Only the event of that very call about that
// very table meets it (an event of another call, or about another table,
// shows nothing of whether Tether's own come back).
type echo struct {
	// call is the API call (UpdateTable, TagResource, ...).
	call string
	// account (its id), region and table name the table.
	account, region, table string
	// at is when the call began: an event that arrived since meets it.
	at time.Time
}

// key names the call and the table an echo is about.
func (e echo) key() string { return e.account + "|" + e.region + "|" + e.table + "|" + e.call }

// echoOf is the echo an event of a change would meet.
func echoOf(c change) echo {
	return echo{call: c.Call, account: c.Account, region: c.Region, table: c.Table, at: c.At}
}

// message says which call did not come back and what to check.
func (e echo) message(window time.Duration) string {
	where := e.region
	if e.account != "" {
		where = e.account + " " + e.region
	}
	return fmt.Sprintf("Tether's %s of table %s (%s) at %s has not come back through the queue within the echo window (%s): "+
		"events of this account do not reach the queue, so changes made outside Tether are found only by polling. "+
		"Check that the EventBridge rule exists and is enabled, that its pattern matches %s events "+
		"(source aws.dynamodb, detail-type \"AWS API Call via CloudTrail\"), that the queue's policy lets events.amazonaws.com "+
		"sqs:SendMessage with the rule's ARN as aws:SourceArn, and that a CloudTrail trail is logging management events "+
		"in the account and region; the feed is back to Events when the event of this call, or of one of Tether's later calls, reaches the queue",
		e.call, e.table, where, e.at.UTC().Format(time.RFC3339), window, e.call)
}

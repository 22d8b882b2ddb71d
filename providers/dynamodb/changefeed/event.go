package changefeed

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// MaxEventBytes bounds a message Tether parses: an EventBridge event is at
// most 256 KB (EventBridge User Guide, PutEvents), so a larger message in
// the queue is not one of the events a rule sent.
const MaxEventBytes = 256 * 1024

// The event a rule delivers: EventBridge's envelope around a CloudTrail
// record (EventBridge events reference, "AWS service events delivered via
// AWS CloudTrail"; CloudTrail User Guide, "CloudTrail record contents").
const (
	eventSource      = "aws.dynamodb"
	eventDetailType  = "AWS API Call via CloudTrail"
	recordSource     = "dynamodb.amazonaws.com"
	tableResourceARN = "AWS::DynamoDB::Table"
)

// envelope is the part of an EventBridge event Tether reads.
type envelope struct {
	ID         string    `json:"id"`
	DetailType string    `json:"detail-type"`
	Source     string    `json:"source"`
	Account    string    `json:"account"`
	Time       time.Time `json:"time"`
	Region     string    `json:"region"`
	Detail     *record   `json:"detail"`
}

// record is the part of a CloudTrail record Tether reads.
type record struct {
	EventID            string       `json:"eventID"`
	EventTime          time.Time    `json:"eventTime"`
	EventSource        string       `json:"eventSource"`
	EventName          string       `json:"eventName"`
	AWSRegion          string       `json:"awsRegion"`
	RecipientAccountID string       `json:"recipientAccountId"`
	ReadOnly           bool         `json:"readOnly"`
	ErrorCode          string       `json:"errorCode"`
	UserIdentity       userIdentity `json:"userIdentity"`
	// RequestParameters names the table: tableName for most calls,
	// targetTableName for restores, tableCreationParameters.tableName for
	// imports, an ARN for the calls that take one (TagResource,
	// PutResourcePolicy, ...).
	RequestParameters struct {
		TableName               string `json:"tableName"`
		TargetTableName         string `json:"targetTableName"`
		TableArn                string `json:"tableArn"`
		ResourceArn             string `json:"resourceArn"`
		TableCreationParameters struct {
			TableName string `json:"tableName"`
		} `json:"tableCreationParameters"`
	} `json:"requestParameters"`
	Resources []struct {
		ARN  string `json:"ARN"`
		Type string `json:"type"`
	} `json:"resources"`
}

// userIdentity is who made the call.
type userIdentity struct {
	Type string `json:"type"`
	ARN  string `json:"arn"`
}

// change is one table change an event reports.
type change struct {
	// ID identifies the call (CloudTrail's eventID, else EventBridge's id),
	// "" when the event carries neither.
	ID string
	// Account, Region and Table name the table the way AWS does.
	Account, Region, Table string
	// Call is the API call, for logs.
	Call string
	// At is when the call was made.
	At time.Time
	// By is the caller's ARN.
	By string
}

// Outcomes of a message, as tether_dynamodb_change_events_total counts
// them. Every message but a retried one is deleted from the queue.
const (
	// OutcomeWoken: an object holding the table was queued for a look.
	OutcomeWoken = "woken"
	// OutcomeCovered: every object holding the table was queued after the
	// change was made; the look that follows sees it.
	OutcomeCovered = "covered"
	// OutcomeOwn: Tether's own call, which its pass already knows of; its
	// event meets the echo its feed expected (echo.go).
	OutcomeOwn = "own"
	// OutcomeIgnored: a DynamoDB call that changed no table (read-only,
	// failed, about no table).
	OutcomeIgnored = "ignored"
	// OutcomeDuplicate: an event already handled (SQS and EventBridge
	// deliver at least once).
	OutcomeDuplicate = "duplicate"
	// OutcomeForeign: not a DynamoDB call, or about a table no object
	// reading from this queue holds (another account, region, table).
	OutcomeForeign = "foreign"
	// OutcomeMalformed: not an EventBridge event of a CloudTrail record,
	// larger than MaxEventBytes, or naming an account, Region, table, call,
	// id or caller that cannot be AWS's.
	OutcomeMalformed = "malformed"
	// OutcomeRetried: could not be routed now (the cache could not be
	// read); left in the queue to come back.
	OutcomeRetried = "retried"
)

// parseEvent reads one message body. It returns the change and "" when the
// event reports a change to a table; the call it reports and
// OutcomeIgnored when the call changed nothing (read only, failed, about
// no table); otherwise no change and the outcome that drops it.
func parseEvent(body string) (change, string) {
	if len(body) > MaxEventBytes {
		return change{}, OutcomeMalformed
	}
	var e envelope
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Detail == nil || e.Source == "" || e.DetailType == "" {
		return change{}, OutcomeMalformed
	}
	r := e.Detail
	if e.Source != eventSource || e.DetailType != eventDetailType || r.EventSource != recordSource {
		return change{}, OutcomeForeign
	}
	c := change{ID: first(r.EventID, e.ID), Account: first(r.RecipientAccountID, e.Account), Region: first(r.AWSRegion, e.Region),
		Call: r.EventName, At: r.EventTime, By: r.UserIdentity.ARN}
	if c.At.IsZero() {
		c.At = e.Time
	}
	if c.At.IsZero() || c.Account == "" || c.Region == "" {
		return change{}, OutcomeMalformed
	}
	c.Table = tableOf(r, &c)
	if !wellFormed(c) {
		return change{}, OutcomeMalformed
	}
	if r.ReadOnly || r.ErrorCode != "" || c.Table == "" {
		// No table changed; the change says whose call it was all the
		// same (a call of Tether's that failed still comes back).
		return c, OutcomeIgnored
	}
	return c, ""
}

// What an event names is checked against AWS's own patterns and lengths
// before anything of it is kept, looked up or logged: anyone who may send
// to the queue writes it, and an event about a 250 KB "table name" is
// about no table AWS has.
var (
	// tableNames: "Length Constraints: Minimum length of 3. Maximum length
	// of 255. Pattern: [a-zA-Z0-9_.-]+" (DynamoDB API Reference,
	// CreateTable, TableName).
	tableNames = awsName{regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`), 3, 255}
	// eventIDs: CloudTrail's eventID is a GUID CloudTrail makes
	// (CloudTrail User Guide, "CloudTrail record contents"), EventBridge's
	// id a UUID (EventBridge User Guide, "Events"); 64 bounds either.
	eventIDs = awsName{regexp.MustCompile(`^[0-9A-Za-z-]+$`), 1, 64}
	// calls: an API operation's name (UpdateTable, TagResource).
	calls = awsName{regexp.MustCompile(`^[A-Za-z0-9]+$`), 1, 64}
)

// awsName is a kind of name: the characters it may hold, and how many.
// The length is checked apart from the pattern: Go's regexp compiles a
// counted repetition such as {3,255} into one step per count, which kept
// about 330 KB of the manager's heap for its whole life.
type awsName struct {
	chars    *regexp.Regexp
	min, max int
}

func (n awsName) allows(s string) bool {
	return len(s) >= n.min && len(s) <= n.max && n.chars.MatchString(s)
}

// maxPrincipalARN is the longest ARN of a caller: STS's and IAM's ARNs are
// at most 2048 characters (STS API Reference, AssumedRoleUser, Arn).
const maxPrincipalARN = 2048

// wellFormed says whether what an event names could be AWS's: a 12-digit
// account id, a Region of one of AWS's partitions, an API's name, an id
// and caller of their bounds, and a table name DynamoDB allows.
func wellFormed(c change) bool {
	_, region := access.PartitionOf(c.Region)
	return access.IsAccountID(c.Account) && region && calls.allows(c.Call) &&
		(c.ID == "" || eventIDs.allows(c.ID)) && len(c.By) <= maxPrincipalARN &&
		(c.Table == "" || tableNames.allows(c.Table))
}

// tableOf finds the table a record is about: by name in the request, else
// from a table ARN (the request's, else the record's resources), whose
// account and region then win over the record's.
func tableOf(r *record, c *change) string {
	p := r.RequestParameters
	if name := first(p.TableName, p.TargetTableName, p.TableCreationParameters.TableName); name != "" && !strings.HasPrefix(name, "arn:") {
		return name
	}
	arns := []string{p.TableName, p.TableArn, p.ResourceArn}
	for _, res := range r.Resources {
		if res.Type == tableResourceARN {
			arns = append(arns, res.ARN)
		}
	}
	for _, arn := range arns {
		if account, region, table, ok := parseTableARN(arn); ok {
			c.Account, c.Region = account, region
			return table
		}
	}
	return ""
}

// parseTableARN reads arn:<partition>:dynamodb:<region>:<account>:table/<name>,
// with or without a trailing /index/..., /stream/... or /backup/....
func parseTableARN(arn string) (account, region, table string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" {
		return "", "", "", false
	}
	resource, found := strings.CutPrefix(parts[5], "table/")
	if !found {
		return "", "", "", false
	}
	table, _, _ = strings.Cut(resource, "/")
	return parts[4], parts[3], table, table != ""
}

func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

package sqstest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Call is one DynamoDB management call, as the event an EventBridge rule
// sends to a queue reports it. Nothing here runs CloudTrail or EventBridge,
// so this is a MODEL of the producer: the event is EventBridge's envelope
// around a CloudTrail record, with the fields and values AWS documents
// (EventBridge User Guide, "AWS service events delivered via AWS
// CloudTrail"; DynamoDB Developer Guide, "Understanding DynamoDB log file
// entries"; docs/accounts.md shows the event and its set-up).
// Tests that use it say so.
type Call struct {
	// Name is the API call (UpdateTable, DeleteTable, TagResource, ...).
	Name string
	// Account, Region and Table name the table.
	Account, Region, Table string
	// At is when the call was made (eventTime); now when zero.
	At time.Time
	// Role and Session are who made it: an assumed-role session.
	Role, Session string
	// ErrorCode makes it a call that failed.
	ErrorCode string
	// EventID is CloudTrail's id of the call; a fresh one when empty.
	EventID string
	// ReadOnly makes it a read (Describe*, List*), which a rule sends only
	// when it opts in to read-only events. With no Table it is about no
	// table (ListTables).
	ReadOnly bool
}

// byARN are the calls whose request names the table by ARN
// (requestParameters.resourceArn) rather than by name.
var byARN = map[string]bool{"TagResource": true, "UntagResource": true, "PutResourcePolicy": true, "DeleteResourcePolicy": true}

// TableARN is the table's ARN.
func (c Call) TableARN() string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", c.Region, c.Account, c.Table)
}

// Event is the message body a rule targeting a queue delivers for the call.
func (c Call) Event() string {
	at := c.At
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	id := c.EventID
	if id == "" {
		id = newID()
	}
	role, session := c.Role, c.Session
	if role == "" {
		role, session = "Admin", "console-user"
	}
	params := map[string]any{"tableName": c.Table}
	if byARN[c.Name] {
		params = map[string]any{"resourceArn": c.TableARN()}
	}
	resources := []any{map[string]any{"accountId": c.Account, "type": "AWS::DynamoDB::Table", "ARN": c.TableARN()}}
	if c.Table == "" {
		params, resources = map[string]any{}, []any{}
	}
	detail := map[string]any{
		"eventVersion": "1.09",
		"userIdentity": map[string]any{
			"type":        "AssumedRole",
			"principalId": "AROAEXAMPLEROLEID:" + session,
			"arn":         fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", c.Account, role, session),
			"accountId":   c.Account,
			"accessKeyId": "ASIAEXAMPLEKEYID",
			"sessionContext": map[string]any{
				"sessionIssuer": map[string]any{"type": "Role", "principalId": "AROAEXAMPLEROLEID",
					"arn": fmt.Sprintf("arn:aws:iam::%s:role/%s", c.Account, role), "accountId": c.Account, "userName": role},
				"attributes": map[string]any{"creationDate": at.Add(-time.Hour).Format(time.RFC3339), "mfaAuthenticated": "false"},
			},
		},
		"eventTime":          at.Format(time.RFC3339),
		"eventSource":        "dynamodb.amazonaws.com",
		"eventName":          c.Name,
		"awsRegion":          c.Region,
		"sourceIPAddress":    "192.0.2.10",
		"userAgent":          "aws-cli/2.15.0",
		"requestParameters":  params,
		"responseElements":   nil,
		"requestID":          newID(),
		"eventID":            id,
		"readOnly":           c.ReadOnly,
		"resources":          resources,
		"eventType":          "AwsApiCall",
		"managementEvent":    true,
		"recipientAccountId": c.Account,
		"eventCategory":      "Management",
	}
	if c.ErrorCode != "" {
		detail["errorCode"] = c.ErrorCode
		detail["errorMessage"] = "the call failed"
	}
	raw, err := json.Marshal(map[string]any{
		"version": "0", "id": newID(), "detail-type": "AWS API Call via CloudTrail", "source": "aws.dynamodb",
		"account": c.Account, "time": at.Format(time.RFC3339), "region": c.Region, "resources": []any{}, "detail": detail,
	})
	if err != nil {
		panic(err)
	}
	return string(raw)
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

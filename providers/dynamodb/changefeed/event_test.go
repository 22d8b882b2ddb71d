package changefeed

import (
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/sqstest"
)

// The events are the sqstest model of what an EventBridge rule delivers
// (CloudTrail record inside the EventBridge envelope, as AWS documents it),
// and hostile or broken messages around it.
func TestParseEvent(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	call := func(name string, mutate ...func(*sqstest.Call)) string {
		c := sqstest.Call{Name: name, Account: "111122223333", Region: "eu-west-1", Table: "orders", At: at, EventID: "e-1"}
		for _, m := range mutate {
			m(&c)
		}
		return c.Event()
	}
	edit := func(body, old, new string) string {
		if !strings.Contains(body, old) {
			t.Fatalf("the model's event has no %q", old)
		}
		return strings.Replace(body, old, new, 1)
	}
	// within is a body under MaxEventBytes: a case about what it names
	// must not pass for its size.
	within := func(body string) string {
		if len(body) > MaxEventBytes {
			t.Fatalf("a body of %d bytes, over MaxEventBytes", len(body))
		}
		return body
	}
	orders := change{ID: "e-1", Account: "111122223333", Region: "eu-west-1", Table: "orders", At: at,
		By: "arn:aws:sts::111122223333:assumed-role/Admin/console-user"}
	with := func(call string) change { c := orders; c.Call = call; return c }
	cases := []struct {
		name    string
		body    string
		want    change
		outcome string
	}{
		{name: "UpdateTable by name", body: call("UpdateTable"), want: with("UpdateTable")},
		{name: "DeleteTable by name", body: call("DeleteTable"), want: with("DeleteTable")},
		{name: "TagResource by ARN", body: call("TagResource"), want: with("TagResource")},
		{name: "PutResourcePolicy by ARN", body: call("PutResourcePolicy"), want: with("PutResourcePolicy")},
		{name: "a table named by ARN in another region wins over the record's",
			body: edit(call("TagResource"), `"resourceArn":"arn:aws:dynamodb:eu-west-1:`, `"resourceArn":"arn:aws:dynamodb:us-west-2:`),
			want: func() change { c := with("TagResource"); c.Region = "us-west-2"; return c }()},
		{name: "a restore names its target", body: edit(call("RestoreTableToPointInTime"), `"tableName":"orders"`, `"sourceTableName":"old","targetTableName":"orders"`),
			want: with("RestoreTableToPointInTime")},
		{name: "an index ARN is its table's",
			body: edit(call("TagResource"), `"resourceArn":"arn:aws:dynamodb:eu-west-1:111122223333:table/orders"`,
				`"resourceArn":"arn:aws:dynamodb:eu-west-1:111122223333:table/orders/index/byCustomer"`), want: with("TagResource")},
		{name: "no request parameters: the resources name the table",
			body: edit(call("UpdateTable"), `"requestParameters":{"tableName":"orders"}`, `"requestParameters":null`), want: with("UpdateTable")},
		{name: "no eventID: EventBridge's id", body: edit(call("UpdateTable"), `"eventID":"e-1"`, `"eventID":""`), outcome: ""},

		{name: "a failed call changed nothing", body: call("UpdateTable", func(c *sqstest.Call) { c.ErrorCode = "ValidationException" }), outcome: OutcomeIgnored},
		{name: "a read-only call", body: edit(call("DescribeTable"), `"readOnly":false`, `"readOnly":true`), outcome: OutcomeIgnored},
		{name: "a call about no table",
			body:    edit(edit(call("UpdateTable"), `"requestParameters":{"tableName":"orders"}`, `"requestParameters":{}`), `"resources":[{`, `"resources":[],"x":[{`),
			outcome: OutcomeIgnored},
		{name: "another service's call", body: edit(edit(call("UpdateTable"), `"source":"aws.dynamodb"`, `"source":"aws.s3"`), `"eventSource":"dynamodb.amazonaws.com"`, `"eventSource":"s3.amazonaws.com"`),
			outcome: OutcomeForeign},
		{name: "another detail type", body: edit(call("UpdateTable"), `"detail-type":"AWS API Call via CloudTrail"`, `"detail-type":"Scheduled Event"`), outcome: OutcomeForeign},
		{name: "a DynamoDB source with another service's record", body: edit(call("UpdateTable"), `"eventSource":"dynamodb.amazonaws.com"`, `"eventSource":"iam.amazonaws.com"`),
			outcome: OutcomeForeign},

		{name: "not JSON", body: "hello", outcome: OutcomeMalformed},
		{name: "JSON, not an event", body: `{"Records":[{"eventName":"UpdateTable"}]}`, outcome: OutcomeMalformed},
		{name: "an envelope without detail", body: `{"source":"aws.dynamodb","detail-type":"AWS API Call via CloudTrail","account":"1","region":"r","time":"2026-01-02T03:04:05Z"}`,
			outcome: OutcomeMalformed},
		{name: "detail of the wrong type", body: edit(call("UpdateTable"), `"detail":{`, `"detail":"{`)[:200], outcome: OutcomeMalformed},
		{name: "a bad time", body: edit(call("UpdateTable"), `"eventTime":"2026-01-02T03:04:05Z"`, `"eventTime":"yesterday"`), outcome: OutcomeMalformed},
		{name: "no time at all", body: edit(edit(call("UpdateTable"), `"eventTime":"2026-01-02T03:04:05Z",`, ``), `"time":"2026-01-02T03:04:05Z",`, ``), outcome: OutcomeMalformed},
		{name: "no account", body: edit(edit(call("UpdateTable"), `"recipientAccountId":"111122223333"`, `"recipientAccountId":""`), `"account":"111122223333"`, `"account":""`),
			outcome: OutcomeMalformed},
		{name: "over the size bound", body: edit(call("UpdateTable"), `"userAgent":"aws-cli/2.15.0"`, `"userAgent":"`+strings.Repeat("x", MaxEventBytes)+`"`),
			outcome: OutcomeMalformed},

		// Issue 39 item 8: what no AWS event names is dropped before
		// anything of it is kept, a read-only event included.
		{name: "a table name longer than DynamoDB allows", body: call("UpdateTable", func(c *sqstest.Call) { c.Table = strings.Repeat("t", 256) }),
			outcome: OutcomeMalformed},
		{name: "a read-only event about a 100 KB table name",
			body:    within(edit(call("DescribeTable", func(c *sqstest.Call) { c.Table = strings.Repeat("t", 100*1024) }), `"readOnly":false`, `"readOnly":true`)),
			outcome: OutcomeMalformed},
		{name: "a table name shorter than DynamoDB allows", body: call("UpdateTable", func(c *sqstest.Call) { c.Table = "ab" }), outcome: OutcomeMalformed},
		{name: "a table name with a character DynamoDB refuses", body: edit(call("UpdateTable"), `"tableName":"orders"`, `"tableName":"or ders"`),
			outcome: OutcomeMalformed},
		{name: "an account id that is none", body: call("UpdateTable", func(c *sqstest.Call) { c.Account = "11112222333x" }), outcome: OutcomeMalformed},
		{name: "a Region no partition has", body: call("UpdateTable", func(c *sqstest.Call) { c.Region = "moon-base-1" }), outcome: OutcomeMalformed},
		{name: "a Region longer than any", body: call("UpdateTable", func(c *sqstest.Call) { c.Region = "us-" + strings.Repeat("x", 100) + "-1" }),
			outcome: OutcomeMalformed},
		{name: "an event id of 200 KB", body: within(call("UpdateTable", func(c *sqstest.Call) { c.EventID = strings.Repeat("e", 200*1024) })), outcome: OutcomeMalformed},
		{name: "a call name that is none", body: call("Update Table!"), outcome: OutcomeMalformed},
		{name: "a Region of another partition", body: call("UpdateTable", func(c *sqstest.Call) { c.Region = "cn-north-1" }),
			want: func() change { c := with("UpdateTable"); c.Region = "cn-north-1"; return c }()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, outcome := parseEvent(c.body)
			if outcome != c.outcome {
				t.Fatalf("outcome %q, want %q (%+v)", outcome, c.outcome, got)
			}
			if c.want.Table != "" && got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if c.outcome == "" && (got.ID == "" || got.Table == "") {
				t.Errorf("a change without id or table: %+v", got)
			}
		})
	}
}

// TestAWSNamesHoldTheirBounds: a name is allowed only at AWS's lengths and
// in its characters, at each edge (the length is checked apart from the
// pattern, awsName).
func TestAWSNamesHoldTheirBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rule  awsName
		value string
		ok    bool
	}{
		{"table name of 2", tableNames, "ab", false},
		{"table name of 3", tableNames, "a.b", true},
		{"table name of 255", tableNames, strings.Repeat("t", 255), true},
		{"table name of 256", tableNames, strings.Repeat("t", 256), false},
		{"table name with a slash", tableNames, "orders/index", false},
		{"table name with a newline at its end", tableNames, "orders\n", false},
		{"empty call", calls, "", false},
		{"call of 64", calls, strings.Repeat("C", 64), true},
		{"call of 65", calls, strings.Repeat("C", 65), false},
		{"call with a dash", calls, "Update-Table", false},
		{"event id, a UUID", eventIDs, "6f1c2b1e-6c5f-4d0e-9a3b-2f1d0c9e8b7a", true},
		{"event id of 65", eventIDs, strings.Repeat("e", 65), false},
	} {
		if got := tc.rule.allows(tc.value); got != tc.ok {
			t.Errorf("%s: allowed %t, want %t", tc.name, got, tc.ok)
		}
	}
}

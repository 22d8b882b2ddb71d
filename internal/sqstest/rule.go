package sqstest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// ruleCalls are the calls the rule in docs/accounts.md matches: its
// eventName list, read from that page so that the model matches what users
// are told to create (DocumentedEventNames).
var ruleCalls = sync.OnceValue(func() map[string]bool {
	names, err := DocumentedEventNames()
	if err != nil {
		panic(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
})

// DocumentedEventNames is the eventName list of the EventBridge rule
// pattern in docs/accounts.md, the JSON block that has one.
func DocumentedEventNames() ([]string, error) {
	_, self, _, _ := runtime.Caller(0)
	page := filepath.Join(filepath.Dir(self), "..", "..", "docs", "accounts.md")
	raw, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	blocks := strings.Split(string(raw), "```json")
	for _, b := range blocks[1:] {
		block, _, _ := strings.Cut(b, "```")
		if !strings.Contains(block, `"eventName"`) {
			continue
		}
		var pattern struct {
			Detail struct {
				EventName []string `json:"eventName"`
			} `json:"detail"`
		}
		if err := json.Unmarshal([]byte(block), &pattern); err != nil {
			return nil, fmt.Errorf("%s: the rule pattern: %w", page, err)
		}
		return pattern.Detail.EventName, nil
	}
	return nil, fmt.Errorf("%s: no rule pattern with an eventName list", page)
}

// Rule is a MODEL of the path from a DynamoDB call to a queue: CloudTrail
// recording the call and an EventBridge rule with the pattern of
// docs/accounts.md sending its event to the queue. Nothing here runs
// CloudTrail or EventBridge: a test tells the rule of each call DynamoDB
// answered (faultproxy.OnAnswered) and the rule puts the call's event
// (Call.Event, shaped as AWS documents it) into the queue at once, for the
// calls the pattern matches. Disabled, it models a rule that was deleted
// or disabled, or a queue policy that refuses it: nothing arrives. Tests
// that use it say so.
type Rule struct {
	client *sqs.Client
	queue  string
	// caller is the call's account, region and who made it; Name, Table
	// and At are each call's.
	caller   Call
	disabled atomic.Bool
	failures atomic.Int64
}

// NewRule returns an enabled rule sending to queue through client the
// calls of caller (its Account, Region, Role and Session).
func NewRule(client *sqs.Client, queue string, caller Call) *Rule {
	return &Rule{client: client, queue: queue, caller: caller}
}

// SetEnabled turns delivery on or off.
func (r *Rule) SetEnabled(on bool) { r.disabled.Store(!on) }

// Matches says whether the rule sends the events of a call.
func (r *Rule) Matches(call string) bool { return ruleCalls()[call] }

// Deliver puts the event of a call about table into the queue when the
// rule is enabled and its pattern matches the call. It reports whether it
// did; a SendMessage that failed is counted in Failures.
func (r *Rule) Deliver(ctx context.Context, call, table string) bool {
	if r.disabled.Load() || !r.Matches(call) {
		return false
	}
	c := r.caller
	c.Name, c.Table = call, table
	if _, err := r.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.queue), MessageBody: aws.String(c.Event())}); err != nil {
		r.failures.Add(1)
		return false
	}
	return true
}

// Failures is how many events the queue refused.
func (r *Rule) Failures() int64 { return r.failures.Load() }

package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A change feed's queue, endpoint, safety interval and echo window are checked by the
// API server, so a typo is refused at apply time instead of leaving the
// account polling with a reason nobody reads.
func TestAWSAccountChangeEventsValidation(t *testing.T) {
	spec := func(events map[string]any) map[string]any {
		return map[string]any{
			"assumeRole":        map[string]any{"roleARN": "arn:aws:iam::111122223333:role/tether"},
			"namespaceSelector": map[string]any{"names": []any{"orders"}},
			"changeEvents":      events,
		}
	}
	ctx := context.Background()
	good := []map[string]any{
		{"queue": "https://sqs.eu-west-1.amazonaws.com/111122223333/tether-changes"},
		{"queue": "arn:aws:sqs:eu-west-1:111122223333:tether-changes", "safetyInterval": "1h"},
		{"queue": "arn:aws:sqs:eu-west-1:111122223333:tether-changes", "echoWindow": "5s"},
		{"queue": "arn:aws:sqs:eu-west-1:111122223333:tether-changes", "echoWindow": "24h"},
		{"queue": "arn:aws-cn:sqs:cn-north-1:111122223333:tether-changes.fifo"},
		{"queue": "http://127.0.0.1:4100/111122223333/changes", "region": "us-east-1", "endpoint": "http://127.0.0.1:4100"},
	}
	for i, events := range good {
		if err := env.Client.Create(ctx, awsAccount(fmt.Sprintf("events-good-%d", i), spec(events))); err != nil {
			t.Errorf("%v was refused: %v", events, err)
		}
	}
	bad := []struct {
		name    string
		events  map[string]any
		message string
	}{
		{"a queue name alone", map[string]any{"queue": "tether-changes"}, "spec.changeEvents.queue"},
		{"an SNS topic", map[string]any{"queue": "arn:aws:sns:eu-west-1:111122223333:tether-changes"}, "spec.changeEvents.queue"},
		{"a URL without the account", map[string]any{"queue": "https://sqs.eu-west-1.amazonaws.com/tether-changes"}, "spec.changeEvents.queue"},
		{"no queue", map[string]any{"region": "eu-west-1"}, "spec.changeEvents.queue"},
		{"endpoint not a URL", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "endpoint": "sqs.local"}, "spec.changeEvents.endpoint"},
		{"safety interval too short", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "safetyInterval": "10s"}, "safetyInterval must be between 1m and 24h"},
		{"safety interval too long", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "safetyInterval": "48h"}, "safetyInterval must be between 1m and 24h"},
		{"safety interval not a duration", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "safetyInterval": "half an hour"}, "spec.changeEvents.safetyInterval"},
		{"echo window shorter than the check", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "echoWindow": "4s"}, "echoWindow must be between 5s and 24h"},
		{"echo window of nothing", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "echoWindow": "0s"}, "echoWindow must be between 5s and 24h"},
		{"echo window too long", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "echoWindow": "25h"}, "echoWindow must be between 5s and 24h"},
		{"echo window not a duration", map[string]any{"queue": "arn:aws:sqs:eu-west-1:111122223333:q", "echoWindow": "a while"}, "spec.changeEvents.echoWindow"},
	}
	for i, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(ctx, awsAccount(fmt.Sprintf("events-bad-%d", i), spec(c.events)))
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %v, want a refusal naming %q", err, c.message)
			}
		})
	}
}

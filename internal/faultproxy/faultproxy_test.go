package faultproxy_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
)

func clientFor(t *testing.T, url string, maxAttempts int) *dynamodb.Client {
	t.Helper()
	ddbtest.UseEndpoint(t, url)
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRetryMaxAttempts(maxAttempts))
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg)
}

// Both endpoints start, answer the SDK, and the proxy counts per operation.
func TestProxyInFrontOfBothEndpoints(t *testing.T) {
	for name, start := range map[string]func(t *testing.T) *ddbtest.Server{
		"DynamoDBLocal": func(t *testing.T) *ddbtest.Server { return ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{}) },
		"dynalite":      func(t *testing.T) *ddbtest.Server { return ddbtest.Dynalite(t, ddbtest.DynaliteOptions{}) },
	} {
		t.Run(name, func(t *testing.T) {
			server := start(t)
			proxy := ddbtest.FaultProxy(t, server.URL, 1)
			// The SDK retries throttling: two injected faults, then success.
			proxy.SetRules(faultproxy.Rule{Operation: "ListTables", Share: 1, Limit: 2, Fault: faultproxy.Throttling})
			db := clientFor(t, proxy.URL(), 3)
			if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
				t.Fatalf("ListTables through the proxy: %v", err)
			}
			if got := proxy.Calls()["ListTables"]; got != 3 {
				t.Errorf("ListTables calls = %d, want 3 (2 throttled + 1 forwarded)", got)
			}
			if got := proxy.Faults()["ListTables"]; got != 2 {
				t.Errorf("ListTables faults = %d, want 2", got)
			}
		})
	}
}

// A 5xx the retryer gives up on reaches the caller with AWS's error code.
func TestProxyFaultIsAnAWSError(t *testing.T) {
	proxy := ddbtest.FaultProxy(t, "http://127.0.0.1:1", 1)
	proxy.SetRules(faultproxy.Rule{Share: 1, Fault: faultproxy.ServiceUnavailable})
	db := clientFor(t, proxy.URL(), 1)
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("x")})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ServiceUnavailable" {
		t.Fatalf("err = %v, want API error ServiceUnavailable", err)
	}
	if got := proxy.Calls()["DescribeTable"]; got != 1 {
		t.Errorf("DescribeTable calls = %d, want 1", got)
	}
}

// A share below one fails about that share of calls, reproducibly by seed.
func TestProxyShare(t *testing.T) {
	proxy := ddbtest.FaultProxy(t, "http://127.0.0.1:1", 7)
	proxy.SetRules(faultproxy.Rule{Share: 0.3, Fault: faultproxy.Throttling})
	db := clientFor(t, proxy.URL(), 1)
	for range 200 {
		_, _ = db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("x")})
	}
	faults := proxy.Faults()["DescribeTable"]
	if faults < 40 || faults > 80 {
		t.Errorf("faults = %d of 200, want about 60", faults)
	}
}

// Calls are also counted per table, found in the body or the ARN.
func TestProxyCountsPerTable(t *testing.T) {
	server := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	proxy := ddbtest.FaultProxy(t, server.URL, 1)
	db := clientFor(t, proxy.URL(), 1)
	ctx := context.Background()
	for _, name := range []string{"alpha", "beta"} {
		_, _ = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	}
	_, _ = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("alpha")})
	_, _ = db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:ddblocal:000000000000:table/alpha")})
	if got := proxy.CallsFor("alpha"); got["DescribeTable"] != 2 || got["ListTagsOfResource"] != 1 {
		t.Errorf("alpha calls = %v", got)
	}
	if got := proxy.CallsFor("beta"); got["DescribeTable"] != 1 || len(got) != 1 {
		t.Errorf("beta calls = %v", got)
	}
}

// BeforeForwarding runs its action once, before the named table's call is
// forwarded (so the call sees what the action did), and not for others.
func TestBeforeForwardingActsOnceBeforeTheCall(t *testing.T) {
	server := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	proxy := ddbtest.FaultProxy(t, server.URL, 1)
	db := clientFor(t, proxy.URL(), 1)
	ran := 0
	proxy.BeforeForwarding("DescribeTable", "target", func() { ran++ })
	ctx := context.Background()
	for _, name := range []string{"other", "target", "target"} {
		_, _ = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	}
	if ran != 1 {
		t.Errorf("action ran %d times, want once", ran)
	}
}

// SpanFor tells the first and last call of an operation about a table and
// the mean time between calls.
func TestSpanForTimesATablesCalls(t *testing.T) {
	server := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	proxy := ddbtest.FaultProxy(t, server.URL, 1)
	db := clientFor(t, proxy.URL(), 1)
	ctx := context.Background()
	describe := func() { _, _ = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("timed")}) }
	describe()
	if iv := proxy.SpanFor("timed", "DescribeTable").Interval(); iv != 0 {
		t.Errorf("one call: interval %s, want 0", iv)
	}
	time.Sleep(300 * time.Millisecond) // the interval measured, not a synchronisation
	describe()
	time.Sleep(300 * time.Millisecond)
	describe()
	s := proxy.SpanFor("timed", "DescribeTable")
	// The sleeps set a floor; a busy machine may stretch the gaps.
	if s.Calls != 3 || s.Interval() < 300*time.Millisecond || s.Interval() != s.Last.Sub(s.First)/2 {
		t.Errorf("span = %+v, interval %s, want 3 calls at least 300ms apart", s, s.Interval())
	}
	proxy.ResetCounts()
	if s := proxy.SpanFor("timed", "DescribeTable"); s.Calls != 0 {
		t.Errorf("after reset: %+v", s)
	}
}

// OnAnswered tells of each call the target answered, with its status and
// the key that signed it, and not of a call the proxy failed itself.
func TestOnAnsweredTellsOfTheCallsTheTargetAnswered(t *testing.T) {
	server := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	proxy := ddbtest.FaultProxy(t, server.URL, 1)
	db := clientFor(t, proxy.URL(), 1)
	ctx := context.Background()
	var (
		mu  sync.Mutex
		got []faultproxy.Answered
	)
	proxy.OnAnswered(func(a faultproxy.Answered) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, a)
	})
	proxy.SetRules(faultproxy.Rule{Operation: "ListTables", Share: 1, Fault: faultproxy.Throttling})
	_, _ = db.ListTables(ctx, &dynamodb.ListTablesInput{})
	_, _ = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("nothing-here")})
	_, _ = db.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:ddblocal:000000000000:table/nothing-here"),
		TagKeys: []string{"k"}})
	creds, err := db.Options().Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("told of %+v, want the two calls DynamoDB Local answered", got)
	}
	for i, op := range []string{"DescribeTable", "UntagResource"} {
		a := got[i]
		if a.Operation != op || a.Table != "nothing-here" || a.Status != 400 || a.AccessKeyID != creds.AccessKeyID {
			t.Errorf("call %d: %+v, want %s of nothing-here, 400, signed by %s", i, a, op, creds.AccessKeyID)
		}
	}
}

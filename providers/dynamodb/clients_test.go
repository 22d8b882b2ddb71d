package dynamodb

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// The region's limiter paces every attempt, SDK retries included, and the
// SDK retryer absorbs throttling before the caller sees it.
func TestClientPacesAttemptsAndRetriesThrottling(t *testing.T) {
	proxy := ddbtest.FaultProxy(t, dynamoDBLocal(t).URL, 1)
	ddbtest.UseEndpoint(t, proxy.URL())
	clients := access.NewClients(access.ClientOptions{RequestsPerSecond: 5, Burst: 1, MaxAttempts: 5}, nil)
	ep, err := clients.For(context.Background(), access.Target{Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if region, err := clients.Region(context.Background(), "", ""); err != nil || region != "us-east-1" {
		t.Errorf("region = %q, %v; want the default chain's", region, err)
	}
	describe := func() error {
		_, err := ep.API.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("none")})
		return err
	}
	start := time.Now()
	for range 11 {
		_ = describe()
	}
	// 11 calls at 5 per second with a burst of 1 take two seconds; DynamoDB
	// Local alone answers them in about half a second.
	if elapsed := time.Since(start); elapsed < 1800*time.Millisecond {
		t.Errorf("11 calls took %s: the limiter did not pace them", elapsed)
	}

	proxy.ResetCounts()
	proxy.SetRules(faultproxy.Rule{Share: 1, Limit: 2, Fault: faultproxy.Throttling})
	if err := describe(); !access.IsNotFound(err) {
		t.Fatalf("err = %v, want ResourceNotFoundException after two throttled attempts", err)
	}
	if got := proxy.Total(); got != 3 {
		t.Errorf("attempts = %d, want 3 (2 throttled, retried by the SDK)", got)
	}
	again, _ := clients.For(context.Background(), access.Target{Region: "us-east-1"})
	if again != ep {
		t.Error("a second client was built for the same region")
	}
}

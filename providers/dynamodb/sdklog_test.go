package dynamodb

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// The AWS SDK's own log lines go to the operator's structured logger at
// debug level, with the reconcile's keys, never straight to stderr (issue
// 17 item 8). DynamoDB Local's error answers are what make the SDK log
// (see SDKLogger for why): a DescribeTable of a missing table is one.
func TestSDKLogsGoToTheStructuredLoggerAtDebug(t *testing.T) {
	ddbtest.UseEndpoint(t, dynamoDBLocal(t).URL)
	stderr := captureStderr(t)

	var mu sync.Mutex
	var lines []string
	logAt := func(verbosity int) context.Context {
		logger := funcr.New(func(prefix, args string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, prefix+" "+args)
		}, funcr.Options{Verbosity: verbosity, LogInfoLevel: aws.String("level")})
		return logr.NewContext(context.Background(), logger.WithValues("DynamoDBTable", "default/orders"))
	}
	ep, err := access.NewClients(access.ClientOptions{}, nil).For(context.Background(), access.Target{Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	describeMissing := func(ctx context.Context) {
		_, err := ep.API.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("no-such-table")})
		if !access.IsNotFound(err) {
			t.Fatalf("err = %v, want ResourceNotFoundException", err)
		}
	}

	describeMissing(logAt(0)) // the operator's default level
	mu.Lock()
	atInfo := len(lines)
	mu.Unlock()
	describeMissing(logAt(1)) // --zap-log-level=debug

	if out := stderr(); strings.Contains(out, "failed to close") || strings.Contains(out, "SDK") {
		t.Errorf("the SDK wrote to stderr:\n%s", out)
	}
	if atInfo != 0 {
		t.Errorf("SDK lines logged at the default level: %v", lines)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, l := range lines {
		found = found || strings.Contains(l, "failed to close HTTP response body") && strings.Contains(l, `"level"=1`) &&
			strings.Contains(l, `"classification"="WARN"`) && strings.Contains(l, `"DynamoDBTable"="default/orders"`) && strings.Contains(l, "aws-sdk")
	}
	if !found {
		t.Errorf("no debug line from the SDK with the reconcile's keys; got %q", lines)
	}
}

// captureStderr redirects os.Stderr until the returned function is called,
// which returns what was written.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := os.Stderr
	os.Stderr = w
	var out strings.Builder
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, r); close(done) }()
	restore := sync.OnceFunc(func() { os.Stderr = orig; w.Close(); <-done })
	t.Cleanup(restore)
	return func() string { restore(); return out.String() }
}

package access

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tether-dev/tether/providers"
)

func TestClassify(t *testing.T) {
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: "m"} }
	http5xx := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 503}},
		Err: errors.New("unavailable")}
	cases := []struct {
		err  error
		kind string // terminal, retry, pending, plain
		why  string
	}{
		{api("ValidationException"), "terminal", ReasonInvalidSpec},
		{api("ThrottlingException"), "retry", providers.ReasonThrottled},
		{api("RequestLimitExceeded"), "retry", providers.ReasonThrottled},
		{api("LimitExceededException"), "retry", reasonLimitExceeded},
		{api("ResourceInUseException"), "pending", ReasonTableBusy},
		{api("AccessDeniedException"), "retry", ReasonAccessDenied},
		{http5xx, "retry", reasonEndpointError},
		{errors.New("dial tcp: connection refused"), "retry", reasonEndpointError},
		{api("SomethingNew"), "plain", ""},
	}
	for _, c := range cases {
		got := Classify(c.err)
		kind, why := "plain", ""
		if te, ok := providers.AsTerminal(got); ok {
			kind, why = "terminal", te.Reason
		} else if ra, ok := providers.AsRetryAfter(got); ok {
			kind, why = "retry", ra.Reason
		} else if pe, ok := providers.AsPending(got); ok {
			kind, why = "pending", pe.Reason
		}
		if kind != c.kind || why != c.why {
			t.Errorf("Classify(%v) = %s/%s, want %s/%s", c.err, kind, why, c.kind, c.why)
		}
	}
}

func TestClassifiedMessagesCarryNoRequestID(t *testing.T) {
	err := &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "CreateTable",
		Err: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}},
			Err: &smithy.GenericAPIError{Code: "ValidationException", Message: "Table read and write throughput must be at least 1"}}}
	got := Classify(err).Error()
	want := "DynamoDB CreateTable: ValidationException: Table read and write throughput must be at least 1"
	if got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if te, ok := providers.AsTerminal(Classify(err)); !ok || te.Reason != ReasonInvalidSpec {
		t.Errorf("not terminal: %v", err)
	}
}

// An answer the SDK cannot decode has no error code, and the SDK's text
// carries the request id, new on every attempt against real AWS: the
// classified message must not, or each retry would rewrite the condition
// and emit another event.
func TestUndecodableAnswersKeepOneMessage(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("x-amzn-RequestId", fmt.Sprintf("REQ%08d", n.Add(1)))
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"__type": "com.amazonaws.dynamodb.v20120810#`)) // cut off
	}))
	defer srv.Close()
	api := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	})
	var messages []string
	for range 2 {
		_, err := api.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("t")})
		if err == nil {
			t.Fatal("a cut-off answer was accepted")
		}
		got := Classify(err)
		if ra, ok := providers.AsRetryAfter(got); !ok || ra.Reason != reasonEndpointError {
			t.Fatalf("Classify(%v) = %v, want a RetryAfter with reason %s", err, got, reasonEndpointError)
		}
		messages = append(messages, got.Error())
	}
	if n.Load() != 2 {
		t.Fatalf("server saw %d requests, want 2", n.Load())
	}
	if messages[0] != messages[1] {
		t.Errorf("message changed between attempts:\n%s\n%s", messages[0], messages[1])
	}
	if strings.Contains(messages[0], "REQ0") || !strings.Contains(messages[0], "DynamoDB DescribeTable: HTTP 500") {
		t.Errorf("message = %q, want the operation and status without the request id", messages[0])
	}
}

package dynamodb

import (
	"errors"
	"net/http"
	"testing"

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
		{api("ThrottlingException"), "retry", ReasonThrottled},
		{api("RequestLimitExceeded"), "retry", ReasonThrottled},
		{api("LimitExceededException"), "retry", ReasonLimitExceeded},
		{api("ResourceInUseException"), "pending", ReasonTableBusy},
		{api("AccessDeniedException"), "retry", ReasonAccessDenied},
		{http5xx, "retry", ReasonEndpointError},
		{errors.New("dial tcp: connection refused"), "retry", ReasonEndpointError},
		{api("SomethingNew"), "plain", ""},
	}
	for _, c := range cases {
		got := classify(c.err)
		kind, why := "plain", ""
		if te, ok := providers.AsTerminal(got); ok {
			kind, why = "terminal", te.Reason
		} else if ra, ok := providers.AsRetryAfter(got); ok {
			kind, why = "retry", ra.Reason
		} else if pe, ok := providers.AsPending(got); ok {
			kind, why = "pending", pe.Reason
		}
		if kind != c.kind || why != c.why {
			t.Errorf("classify(%v) = %s/%s, want %s/%s", c.err, kind, why, c.kind, c.why)
		}
	}
}

func TestClassifiedMessagesCarryNoRequestID(t *testing.T) {
	err := &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "CreateTable",
		Err: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}},
			Err: &smithy.GenericAPIError{Code: "ValidationException", Message: "Table read and write throughput must be at least 1"}}}
	got := classify(err).Error()
	want := "DynamoDB CreateTable: ValidationException: Table read and write throughput must be at least 1"
	if got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if te, ok := providers.AsTerminal(classify(err)); !ok || te.Reason != ReasonInvalidSpec {
		t.Errorf("not terminal: %v", err)
	}
}

package access

import (
	"errors"
	"fmt"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tether-dev/tether/providers"
)

// Condition reasons of the errors Classify makes; the exported ones are
// those the adapter reports itself too.
const (
	reasonLimitExceeded = "LimitExceeded"
	reasonEndpointError = "EndpointError"
	ReasonAccessDenied  = "AccessDenied"
	ReasonInvalidSpec   = "InvalidSpec"
	ReasonTableBusy     = "TableBusy"
)

// Delays of the typed errors. Throttling has already been retried by the
// SDK when it reaches here, so the reconciler waits longer (and backs off
// exponentially while it repeats).
const (
	ThrottledDelay     = 5 * time.Second
	endpointErrorDelay = 10 * time.Second
	accessDeniedDelay  = 2 * time.Minute
	// BusyDelay is how long a table DynamoDB is busy with waits.
	BusyDelay = 5 * time.Second
)

// ErrNoEndpoint stands for an API with no endpoint to call (Application
// Auto Scaling beside a local DynamoDB): handled like an unknown operation.
var ErrNoEndpoint = errors.New("no endpoint for this API")

// ErrorCode is the AWS error code of err, "" when it has none.
func ErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

func IsNotFound(err error) bool { return ErrorCode(err) == "ResourceNotFoundException" }

// IsUnknownOperation is how DynamoDB Local and dynalite answer an API they
// do not implement (tagging, continuous backups, TTL); DynamoDB Local
// answers an Application Auto Scaling call InvalidAction, and there may be
// no endpoint at all for it (ErrNoEndpoint).
func IsUnknownOperation(err error) bool {
	return ErrorCode(err) == "UnknownOperationException" || ErrorCode(err) == "InvalidAction" || errors.Is(err, ErrNoEndpoint)
}

// Classify turns an AWS error into the typed error that tells the reconciler
// what to do next. Errors it does not know pass through, for the
// reconciler's generic backoff.
func Classify(err error) error {
	if err == nil || IsTyped(err) {
		return err
	}
	err = Stable(err)
	switch ErrorCode(err) {
	case "ValidationException", "SerializationException":
		// The spec cannot work as written: retrying the same call fails the
		// same way, so stop and show AWS's own words.
		return providers.Terminal(ReasonInvalidSpec, err)
	case "ThrottlingException", "RequestLimitExceeded", "ProvisionedThroughputExceededException":
		return providers.RetryAfter(ThrottledDelay, providers.ReasonThrottled, err)
	case "LimitExceededException":
		return providers.RetryAfter(ThrottledDelay, reasonLimitExceeded, err)
	case "ResourceInUseException":
		return providers.Pendingf(BusyDelay, ReasonTableBusy, "DynamoDB is busy with the table: %v", err)
	case "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException", "ExpiredTokenException":
		// Fixed by IAM, not by the spec: retry, but slowly.
		return providers.RetryAfter(accessDeniedDelay, ReasonAccessDenied, err)
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500 {
		return providers.RetryAfter(endpointErrorDelay, reasonEndpointError, err)
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		// Network errors: the endpoint is unreachable.
		return providers.RetryAfter(endpointErrorDelay, reasonEndpointError, err)
	}
	return err
}

// awsError is an AWS error with a message that stays the same from one
// attempt to the next: the SDK's text carries a new request id each time,
// which would rewrite the conditions (and emit an event) on every retry.
type awsError struct {
	text  string
	cause error
}

func (e *awsError) Error() string { return e.text }
func (e *awsError) Unwrap() error { return e.cause }

// Stable rewrites an SDK error as "DynamoDB <Operation>: <Code>: <AWS's
// message>", or, for an answer the SDK could not decode (no error code),
// "DynamoDB <Operation>: HTTP <status>: <what went wrong>", keeping the
// original for errors.As. Either way the request id is left out.
func Stable(err error) error {
	op := "call"
	var opErr *smithy.OperationError
	if errors.As(err, &opErr) {
		op = opErr.Operation()
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return &awsError{text: fmt.Sprintf("DynamoDB %s: %s: %s", op, apiErr.ErrorCode(), apiErr.ErrorMessage()), cause: err}
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) && respErr.Err != nil {
		status := "no answer"
		if respErr.Response != nil && respErr.Response.Response != nil {
			status = fmt.Sprintf("HTTP %d", respErr.HTTPStatusCode())
		}
		return &awsError{text: fmt.Sprintf("DynamoDB %s: %s: %v", op, status, respErr.Err), cause: err}
	}
	return err
}

// IsTyped says whether err already says what the reconciler should do.
func IsTyped(err error) bool { return providers.IsTyped(err) }

package dynamodb

import (
	"context"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/tether-dev/tether/providers"
)

// countEveryAttempt records each attempt the SDK sends (retries included) in
// tether_external_calls_total, by operation and result, for a provider
// label (dynamodb, sts).
func countEveryAttempt(provider string) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("TetherCountCalls",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				providers.CountExternalCall(provider, awsmiddleware.GetOperationName(ctx), attemptResult(err))
				return out, md, err
			})
		if err := stack.Finalize.Insert(mw, "Retry", middleware.After); err == nil {
			return nil
		}
		return stack.Finalize.Add(mw, middleware.After)
	}
}

// attemptResult names an attempt's outcome: AWS pushing back is "throttled".
func attemptResult(err error) string {
	if err == nil {
		return providers.ResultOK
	}
	switch errorCode(err) {
	case "ThrottlingException", "RequestLimitExceeded", "ProvisionedThroughputExceededException", "LimitExceededException":
		return providers.ResultThrottled
	}
	return providers.ResultError
}

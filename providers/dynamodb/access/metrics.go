package access

import (
	"context"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/tether-dev/tether/providers"
)

// awsCalls is tether_external_calls_total for AWS with the account and
// region each call went to, so that a platform team sees what each account
// costs.
var awsCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "tether_aws_calls_total",
	Help: "Requests sent to AWS (each retry attempt) by service (dynamodb, sts, applicationautoscaling), account (its id, or operator for the manager's own identity when its account is not known), region, operation and result (ok, throttled, error).",
}, []string{"service", "account", "region", "operation", "result"})

func init() { metrics.Registry.MustRegister(awsCalls) }

// countEveryAttempt records each attempt the SDK sends (retries included) in
// tether_external_calls_total, by operation and result, for a provider
// label (dynamodb, sts, applicationautoscaling), and in
// tether_aws_calls_total with the account and region.
func countEveryAttempt(provider, account, region string) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("TetherCountCalls",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				operation, result := awsmiddleware.GetOperationName(ctx), attemptResult(err)
				providers.CountExternalCall(provider, operation, result)
				awsCalls.WithLabelValues(provider, account, region, operation, result).Inc()
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
	switch ErrorCode(err) {
	case "ThrottlingException", "RequestLimitExceeded", "ProvisionedThroughputExceededException", "LimitExceededException":
		return providers.ResultThrottled
	}
	return providers.ResultError
}

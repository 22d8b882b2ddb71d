package access

import (
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
)

// newScalingAPI builds the Application Auto Scaling client of an endpoint:
// the same identity (credentials) and region as its DynamoDB client, the
// same retryer and the same account-and-region limiter, its calls counted
// under their own provider label.
//
// Where it goes: an AWSAccount's spec.endpoint stands for AWS as reached
// from here, so its Application Auto Scaling calls go there too (a proxy or
// model answers them; DynamoDB Local answers an unknown operation and
// autoScaling is listed unsupported). Otherwise the SDK's own resolution:
// AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING, AWS_ENDPOINT_URL, or AWS.
// Beside a DynamoDB endpoint set with AWS_ENDPOINT_URL_DYNAMODB alone
// (DynamoDB Local) there is none: nil, and autoScaling is unsupported there.
func newScalingAPI(cfg aws.Config, accountEndpoint, account string, b *budget, retryer aws.Retryer) ScalingAPI {
	if accountEndpoint == "" && os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" &&
		os.Getenv("AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING") == "" && os.Getenv("AWS_ENDPOINT_URL") == "" {
		return nil
	}
	return applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) {
		if accountEndpoint != "" {
			o.BaseEndpoint = aws.String(accountEndpoint)
		}
		o.Retryer = retryer
		o.APIOptions = append(o.APIOptions, limitEveryAttempt(b), countEveryAttempt("applicationautoscaling", account, cfg.Region))
	})
}

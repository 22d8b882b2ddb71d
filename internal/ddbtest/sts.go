package ddbtest

import (
	"sync"

	"github.com/tether-dev/tether/internal/ststest"
)

// The operator learns its own AWS account from STS (sts:GetCallerIdentity)
// before its first write, and writes nothing while it cannot tell. DynamoDB
// Local has no STS beside it, so every environment EnvFor makes points the
// SDK at one STS model (internal/ststest) for the process, which puts the
// dummy credentials in the account DynamoDB Local writes in its ARNs
// (ststest.DefaultAccount). Tests with STS roles of their own set
// AWS_ENDPOINT_URL_STS to their model after EnvFor.
var (
	callerSTSOnce sync.Once
	callerSTSURL  string
)

// callerSTS is the URL of the process's STS model, started on first use
// and left running until the process ends; "" when it could not start (the
// operator then cannot tell its account, and says so).
func callerSTS() string {
	callerSTSOnce.Do(func() {
		if s, err := ststest.Start(ststest.Options{}); err == nil {
			callerSTSURL = s.URL
		}
	})
	return callerSTSURL
}

package dynamodb

import (
	"testing"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ststest"
)

// TestAWSCallsAreCountedByAccount: the calls for tables in two AWSAccounts
// are counted under each account's id and region, STS's AssumeRole under
// the account whose role it assumes.
func TestAWSCallsAreCountedByAccount(t *testing.T) {
	url := dynamoDBLocal(t).URL
	f := newAccountsFixture(t, url, Options{}, ststest.Options{},
		namespace("metrics-a", nil, nil), namespace("metrics-b", nil, nil),
		account("metrics-a", roleA, admitting("metrics-a")),
		account("metrics-b", roleB, admitting("metrics-b"), func(a *awsv1alpha1.AWSAccount) {
			a.Spec.AssumeRole.ExternalID = "team-b-ext"
			a.Spec.Region = "eu-west-1"
		}))
	before := map[string]float64{}
	count := func(service, account, region, operation string) float64 {
		return metricValue(t, "tether_aws_calls_total", "service", service, "account", account, "region", region, "operation", operation, "result", "ok")
	}
	series := [][4]string{
		{"dynamodb", "111111111111", "us-east-1", "CreateTable"}, {"dynamodb", "222222222222", "eu-west-1", "CreateTable"},
		{"dynamodb", "111111111111", "us-east-1", "DescribeTable"}, {"dynamodb", "222222222222", "eu-west-1", "DescribeTable"},
		{"sts", "111111111111", "us-east-1", "AssumeRole"}, {"sts", "222222222222", "eu-west-1", "AssumeRole"},
	}
	for _, s := range series {
		before[s[0]+s[1]+s[3]] = count(s[0], s[1], s[2], s[3])
	}
	f.converge(newTable(inNamespace("metrics-a"), usingAccount("metrics-a")))
	f.converge(newTable(inNamespace("metrics-b"), usingAccount("metrics-b")))
	for _, s := range series {
		if got := count(s[0], s[1], s[2], s[3]) - before[s[0]+s[1]+s[3]]; got < 1 {
			t.Errorf("tether_aws_calls_total{service=%q,account=%q,region=%q,operation=%q} grew by %v, want at least 1", s[0], s[1], s[2], s[3], got)
		}
	}
}

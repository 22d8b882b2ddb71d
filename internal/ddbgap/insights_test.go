package ddbgap_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// Contributor insights: never configured is only DISABLED; an ENABLE
// without a mode is ACCESSED_AND_THROTTLED_KEYS; the list leaves out what
// is DISABLED; over the quota of rules an ENABLE goes ENABLING then FAILED,
// with LimitExceededException, and stays FAILED; THROTTLED_KEYS takes half
// the rules.
func TestModelContributorInsightsRules(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{InsightsRules: 4})
	ctx := context.Background()
	for _, name := range []string{"ci-a", "ci-b", "ci-c"} {
		w.table(name, types.BillingModePayPerRequest, false)
	}
	describe := func(name string) *dynamodb.DescribeContributorInsightsOutput {
		t.Helper()
		out, err := w.ddb.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	enable := func(name string, mode types.ContributorInsightsMode) {
		t.Helper()
		if _, err := w.ddb.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(name),
			ContributorInsightsAction: types.ContributorInsightsActionEnable, ContributorInsightsMode: mode}); err != nil {
			t.Fatal(err)
		}
	}
	if d := describe("ci-a"); d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.ContributorInsightsMode != "" {
		t.Fatalf("never configured: %s %q", d.ContributorInsightsStatus, d.ContributorInsightsMode)
	}
	list, err := w.ddb.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String("ci-a")})
	if err != nil || len(list.ContributorInsightsSummaries) != 0 {
		t.Fatalf("list of a table with insights off: %+v %v", list, err)
	}
	enable("ci-a", "")
	enable("ci-b", "")
	if d := describe("ci-a"); d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling || d.ContributorInsightsMode != types.ContributorInsightsModeAccessedAndThrottledKeys {
		t.Fatalf("after ENABLE without a mode: %s %q", d.ContributorInsightsStatus, d.ContributorInsightsMode)
	}
	enable("ci-c", "") // 2 + 2 + 2 rules > 4
	if d := describe("ci-c"); d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling {
		t.Fatalf("over the quota, first: %s", d.ContributorInsightsStatus)
	}
	g := NewWithT(t)
	status := func(name string) func() types.ContributorInsightsStatus {
		return func() types.ContributorInsightsStatus { return describe(name).ContributorInsightsStatus }
	}
	g.Eventually(status("ci-c"), 5*time.Second, 50*time.Millisecond).ShouldNot(Equal(types.ContributorInsightsStatusEnabling))
	d := describe("ci-c")
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusFailed || d.FailureException == nil ||
		aws.ToString(d.FailureException.ExceptionName) != "LimitExceededException" {
		t.Fatalf("over the quota, then: %s %+v", d.ContributorInsightsStatus, d.FailureException)
	}
	if d := describe("ci-a"); d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled {
		t.Fatalf("within the quota: %s", d.ContributorInsightsStatus)
	}
	// THROTTLED_KEYS on ci-b frees a rule: ci-c fits in THROTTLED_KEYS.
	enable("ci-b", types.ContributorInsightsModeThrottledKeys)
	enable("ci-c", types.ContributorInsightsModeThrottledKeys)
	g.Eventually(status("ci-c"), 5*time.Second, 50*time.Millisecond).ShouldNot(Equal(types.ContributorInsightsStatusEnabling))
	if d := describe("ci-c"); d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || d.FailureException != nil {
		t.Fatalf("enabled again within the quota: %s %+v", d.ContributorInsightsStatus, d.FailureException)
	}
	list, err = w.ddb.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String("ci-b")})
	if err != nil || len(list.ContributorInsightsSummaries) != 1 || list.ContributorInsightsSummaries[0].ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("list of ci-b: %+v %v", list, err)
	}
}

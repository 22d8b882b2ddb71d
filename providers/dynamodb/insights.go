package dynamodb

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Contributor insights that AWS reports FAILED: "FAILED never self-heals"
// (ACK dynamodb-controller docs/api-quirks/table-subresources.md), and an
// ENABLE over the Region's quota of rules fails again the same way. So
// Tether sends one ENABLE per spec generation for a table or index whose
// insights FAILED; once that one has failed too, the table is not Ready,
// with AWS's reason, and nothing more is sent until the user changes the
// object (their way of saying "try again").

// reasonInsightsFailed: AWS reports contributor insights FAILED after
// Tether enabled them for this generation.
const reasonInsightsFailed = "ContributorInsightsFailed"

// insightsFailedRecheck is how often a table whose insights FAILED is read
// again: only a change in AWS or to the object ends it, and the object's
// change wakes it at once.
const insightsFailedRecheck = time.Minute

// noteInsightsSent remembers an ENABLE AWS accepted, for the object's
// current spec.
func noteInsightsSent(mem *memory, obj *awsv1alpha1.DynamoDBTable, step plan.Step) {
	if step.Insights == nil || step.Insights.ContributorInsightsAction != types.ContributorInsightsActionEnable {
		return
	}
	mem.insightsEnabled[aws.ToString(step.Insights.IndexName)] = objectFingerprint(obj)
}

// holdFailedInsights hides from the planner the insights that FAILED after
// an ENABLE Tether sent for this spec, and says which they are and why,
// "" when none.
func holdFailedInsights(mem *memory, obj *awsv1alpha1.DynamoDBTable, have *plan.Table) string {
	var failed []string
	hold := func(index, what string, in **plan.Insights) {
		if *in == nil || (*in).Status != string(types.ContributorInsightsStatusFailed) || mem.insightsEnabled[index] != objectFingerprint(obj) {
			return
		}
		s := "contributor insights on " + what + " FAILED"
		if (*in).Failure != "" {
			s += " (" + (*in).Failure + ")"
		}
		failed = append(failed, s)
		*in = nil
	}
	hold("", "the table", &have.Insights)
	for i := range have.GSIs {
		hold(have.GSIs[i].Name, "index "+have.GSIs[i].Name, &have.GSIs[i].Insights)
	}
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("%s after Tether enabled them, and AWS does not retry: remove the cause "+
		"(over the Region's quota of Contributor Insights rules, disable them elsewhere or use mode THROTTLED_KEYS), "+
		"then change the object for Tether to enable them again", strings.Join(failed, "; "))
}

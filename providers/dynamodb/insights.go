package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// insights is CloudWatch Contributor Insights of the table or one index:
// one UpdateContributorInsights per table or index, with the statuses
// ENABLING, ENABLED, DISABLING, DISABLED and FAILED (API
// UpdateContributorInsights). One ListContributorInsights reads the table
// and all its indexes (API ListContributorInsights).
type insights struct {
	Enabled bool
	// Mode is ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS; "" is not
	// managed (desired) or not reported (observed).
	Mode string
	// Status is AWS's status (observed only): ENABLING counts as on and
	// DISABLING as off, so a change in flight is not sent again.
	Status string
}

func specInsights(s *awsv1alpha1.ContributorInsightsSpecification) *insights {
	if s == nil {
		return nil
	}
	return &insights{Enabled: s.Enabled, Mode: s.Mode}
}

func (in *insights) on() bool {
	switch types.ContributorInsightsStatus(in.Status) {
	case types.ContributorInsightsStatusEnabled, types.ContributorInsightsStatusEnabling:
		return true
	case "":
		return in.Enabled
	}
	return false
}

// insightOf is what the last read found for the table ("") or an index; an
// index the answer does not list has insights off.
func insightOf(read map[string]*insights, index string) *insights {
	if read == nil {
		return nil
	}
	if in, ok := read[index]; ok {
		return in
	}
	return &insights{Status: string(types.ContributorInsightsStatusDisabled)}
}

// readInsights lists the table's and its indexes' contributor insights.
func (p *Provider) readInsights(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, mem *memory) error {
	read := map[string]*insights{}
	var next *string
	for {
		out, err := ep.API.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{
			TableName: aws.String(obj.ResolvedTableName()), NextToken: next})
		if err != nil {
			return err
		}
		for _, s := range out.ContributorInsightsSummaries {
			status := s.ContributorInsightsStatus
			read[aws.ToString(s.IndexName)] = &insights{Enabled: status == types.ContributorInsightsStatusEnabled,
				Mode: string(s.ContributorInsightsMode), Status: string(status)}
		}
		if out.NextToken == nil {
			break
		}
		next = out.NextToken
	}
	mem.newer.Insights = read
	return nil
}

// updateInsights turns contributor insights on or off (or changes the mode)
// for the table, then each index, one call each.
func (p *planner) updateInsights() {
	if step, ok := p.insightStep("", p.want.Insights, p.cur.Insights); ok {
		p.add(step)
		p.cur.Insights = p.want.Insights
	}
	for i, ix := range p.cur.GSIs {
		want, ok := p.want.index(ix.Name)
		if !ok {
			continue
		}
		if step, ok := p.insightStep(ix.Name, want.Insights, ix.Insights); ok {
			p.add(step)
			p.cur.GSIs[i].Insights = want.Insights
		}
	}
}

func (p *planner) insightStep(index string, want, have *insights) (Step, bool) {
	if want == nil || have == nil {
		return Step{}, false
	}
	modeDiffers := want.Enabled && want.Mode != "" && have.Mode != "" && want.Mode != have.Mode
	if want.Enabled == have.on() && !modeDiffers {
		return Step{}, false
	}
	in := &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(p.name), ContributorInsightsAction: types.ContributorInsightsActionDisable}
	desc := "disable contributor insights"
	if want.Enabled {
		in.ContributorInsightsAction = types.ContributorInsightsActionEnable
		in.ContributorInsightsMode = types.ContributorInsightsMode(want.Mode)
		desc = "enable contributor insights"
		if want.Mode != "" {
			desc += " (" + want.Mode + ")"
		}
	}
	if index != "" {
		in.IndexName = aws.String(index)
		desc += " on index " + index
	} else {
		desc += " on the table"
	}
	return Step{Kind: StepInsights, Description: desc, Insights: in}, true
}

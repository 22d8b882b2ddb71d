package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// CloudWatch Contributor Insights of the table and each index: one
// UpdateContributorInsights per table or index, with the statuses
// ENABLING, ENABLED, DISABLING, DISABLED and FAILED (API
// UpdateContributorInsights). One ListContributorInsights reads the table
// and all its indexes (API ListContributorInsights).

// FeatureInsights names contributor insights where an endpoint may lack them.
const FeatureInsights = "contributorInsightsSpecification"

// stepInsights turns contributor insights on or off for the table or an index.
const stepInsights StepKind = "ContributorInsights"

func init() {
	register(&feature{
		name:  FeatureInsights,
		kinds: []StepKind{stepInsights},
		uses: func(spec *awsv1alpha1.DynamoDBTableSpec) bool {
			return spec.ContributorInsightsSpecification != nil ||
				anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.ContributorInsightsSpecification != nil })
		},
		desire: func(s source, want *Table) {
			want.Insights = specInsights(s.ContributorInsightsSpecification)
			for i, g := range s.GlobalSecondaryIndexes {
				want.GSIs[i].Insights = specInsights(g.ContributorInsightsSpecification)
			}
		},
		adopt: func(r *Reads, have *Table) {
			have.Insights = insightOf(r.Insights, "")
			for i := range have.GSIs {
				have.GSIs[i].Insights = insightOf(r.Insights, have.GSIs[i].Name)
			}
		},
		hide: func(have *Table) {
			have.Insights = nil
			for i := range have.GSIs {
				have.GSIs[i].Insights = nil
			}
		},
		passes: []pass{{atInsights, (*planner).updateInsights}},
	})
}

func specInsights(s *awsv1alpha1.ContributorInsightsSpecification) *Insights {
	if s == nil {
		return nil
	}
	return &Insights{Enabled: s.Enabled, Mode: s.Mode}
}

// ObservedInsights is ListContributorInsights' answer, by index name ("" for
// the table).
func ObservedInsights(summaries []types.ContributorInsightsSummary) map[string]*Insights {
	out := map[string]*Insights{}
	for _, s := range summaries {
		status := s.ContributorInsightsStatus
		out[aws.ToString(s.IndexName)] = &Insights{Enabled: status == types.ContributorInsightsStatusEnabled,
			Mode: string(s.ContributorInsightsMode), Status: string(status)}
	}
	return out
}

func (in *Insights) on() bool {
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
func insightOf(read map[string]*Insights, index string) *Insights {
	if read == nil {
		return nil
	}
	if in, ok := read[index]; ok {
		return in
	}
	return &Insights{Status: string(types.ContributorInsightsStatusDisabled)}
}

// updateInsights turns contributor insights on or off (or changes the mode)
// for the table, then each index, one call each.
func (p *planner) updateInsights() {
	if step, ok := p.insightStep("", p.want.Insights, p.cur.Insights); ok {
		p.add(step)
		p.cur.Insights = p.want.Insights
	}
	p.keptIndexes(func(i int, want, ix Index) {
		if step, ok := p.insightStep(ix.Name, want.Insights, ix.Insights); ok {
			p.add(step)
			p.cur.GSIs[i].Insights = want.Insights
		}
	})
}

func (p *planner) insightStep(index string, want, have *Insights) (Step, bool) {
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
	return Step{Kind: stepInsights, Description: desc, Insights: in}, true
}

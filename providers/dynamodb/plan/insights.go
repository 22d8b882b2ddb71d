package plan

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// CloudWatch Contributor Insights of the table and each index: one
// UpdateContributorInsights per table or index, with the statuses
// ENABLING, ENABLED, DISABLING, DISABLED and FAILED (API
// UpdateContributorInsights). One ListContributorInsights reads the table
// and all its indexes (API ListContributorInsights); it leaves out what is
// DISABLED (ACK dynamodb-controller docs/api-quirks/table-subresources.md),
// so what it does not list is off.
//
// The mode (ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS) is changed by an
// ENABLE with the new mode, and an ENABLE without one reverts to
// ACCESSED_AND_THROTTLED_KEYS (ibid.; API ContributorInsightsMode): every
// ENABLE carries a mode, the spec's or, where the spec leaves the mode
// alone, the one AWS reports.
//
// ENABLING and DISABLING are AWS still applying a change (1 to 16 seconds,
// ibid.): nothing more is sent meanwhile and the table is not Ready. FAILED
// (over the Region's quota of Contributor Insights rules, say) never
// recovers by itself: an ENABLE is sent again, its description naming
// AWS's failure (DescribeContributorInsights FailureException), so that the
// generic stall breaker stops it, with that reason, when it keeps failing.

// FeatureInsights names contributor insights where an endpoint may lack them.
const FeatureInsights = "contributorInsightsSpecification"

// stepInsights turns contributor insights on or off for the table or an index.
const stepInsights StepKind = "ContributorInsights"

func init() {
	register(insightsSetting.with(&feature{
		name:  FeatureInsights,
		kinds: []StepKind{stepInsights},
		adopt: func(r *Reads, have *Table) {
			have.Insights = insightOf(r.Insights, "")
			for i := range have.GSIs {
				have.GSIs[i].Insights = insightOf(r.Insights, have.GSIs[i].Name)
			}
		},
		busy:   insightsBusy,
		passes: []pass{{atInsights, (*planner).updateInsights}},
	}))
}

// insightsInFlux are the statuses of a change AWS is still applying.
var insightsInFlux = []types.ContributorInsightsStatus{types.ContributorInsightsStatusEnabling, types.ContributorInsightsStatusDisabling}

// insightsBusy names the table's or an index's contributor insights AWS is
// still turning on or off, "" when none.
func insightsBusy(have *Table) string {
	if in := have.Insights; in != nil && slices.Contains(insightsInFlux, types.ContributorInsightsStatus(in.Status)) {
		return "contributor insights on the table are " + in.Status
	}
	for _, ix := range have.GSIs {
		if in := ix.Insights; in != nil && slices.Contains(insightsInFlux, types.ContributorInsightsStatus(in.Status)) {
			return fmt.Sprintf("contributor insights on index %s are %s", ix.Name, in.Status)
		}
	}
	return ""
}

// InsightsInFlux says whether a read shows contributor insights that AWS
// is still turning on or off: the next look reads them again.
func InsightsInFlux(read map[string]*Insights) bool {
	for _, in := range read {
		if slices.Contains(insightsInFlux, types.ContributorInsightsStatus(in.Status)) {
			return true
		}
	}
	return false
}

// insightsSetting is where contributor insights sit and how the spec says
// them; DescribeTable does not report them (they are read, see Adopt).
var insightsSetting = indexed[Insights]{
	at: func(c *Carried) **Insights { return &c.Insights },
	wanted: func(s *awsv1alpha1.DynamoDBTableSpec) *Insights {
		return specInsights(s.ContributorInsightsSpecification)
	},
	wantedOfIndex: func(g *awsv1alpha1.GlobalSecondaryIndex) *Insights {
		return specInsights(g.ContributorInsightsSpecification)
	},
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
	insightsSetting.update(p, func(index string, want, have *Insights) (Step, *Insights, bool) {
		step, ok := p.insightStep(index, want, have)
		return step, want, ok
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
		mode := orDefault(want.Mode, orDefault(have.Mode, string(types.ContributorInsightsModeAccessedAndThrottledKeys)))
		in.ContributorInsightsAction = types.ContributorInsightsActionEnable
		in.ContributorInsightsMode = types.ContributorInsightsMode(mode)
		desc = "enable contributor insights (" + mode + ")"
	}
	if index != "" {
		in.IndexName = aws.String(index)
		desc += " on index " + index
	} else {
		desc += " on the table"
	}
	if have.Status == string(types.ContributorInsightsStatusFailed) {
		desc += " again: AWS reports them FAILED"
		if have.Failure != "" {
			desc += " (" + have.Failure + ")"
		}
	}
	return Step{Kind: stepInsights, Description: desc, Insights: in}, true
}

package plan

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Time to live: read by DescribeTimeToLive, changed by UpdateTimeToLive.

// FeatureTTL names time to live where an endpoint may lack it.
const FeatureTTL = "timeToLiveSpecification"

// StepTimeToLive turns TTL on or off.
const StepTimeToLive StepKind = "TimeToLive"

func init() {
	register(&feature{
		name:  FeatureTTL,
		kinds: []StepKind{StepTimeToLive},
		uses:  func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.TimeToLiveSpecification != nil },
		desire: func(s source, want *Table) {
			if t := s.TimeToLiveSpecification; t != nil {
				want.TTL = &TTL{Attribute: t.AttributeName, Enabled: t.Enabled}
			}
		},
		adopt:  func(r *Reads, have *Table) { have.TTL = r.TTL },
		passes: []pass{{atTTL, (*planner).updateTTL}},
	})
}

// ObservedTTL is DescribeTimeToLive's answer.
func ObservedTTL(d *types.TimeToLiveDescription) *TTL {
	if d == nil {
		return &TTL{}
	}
	return &TTL{Attribute: aws.ToString(d.AttributeName), Status: string(d.TimeToLiveStatus)}
}

func (t TTL) enabled() bool {
	switch t.Status {
	case string(types.TimeToLiveStatusEnabled), string(types.TimeToLiveStatusEnabling):
		return true
	case "":
		return t.Enabled
	default:
		return false
	}
}

// updateTTL: AWS turns TTL off only with the attribute name it is on for,
// so a new attribute name takes two steps.
func (p *planner) updateTTL() {
	want, cur := p.want.TTL, p.cur.TTL
	if want == nil || cur == nil {
		return
	}
	curOn := cur.enabled()
	if curOn && (!want.Enabled || cur.Attribute != want.Attribute) {
		p.add(p.ttlStep(cur.Attribute, false))
		curOn = false
	}
	if want.Enabled && !curOn {
		p.add(p.ttlStep(want.Attribute, true))
	}
	p.cur.TTL = &TTL{Attribute: want.Attribute, Enabled: want.Enabled}
}

func (p *planner) ttlStep(attribute string, enabled bool) Step {
	return Step{Kind: StepTimeToLive, Description: fmt.Sprintf("%s TTL on %s", onOff(enabled), attribute),
		TTL: &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(p.name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attribute), Enabled: aws.Bool(enabled)}}}
}

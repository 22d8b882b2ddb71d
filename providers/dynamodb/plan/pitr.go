package plan

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Point-in-time recovery and its period: UpdateContinuousBackups takes
// RecoveryPeriodInDays (1 to 35, AWS's default 35) with
// PointInTimeRecoveryEnabled, and DescribeContinuousBackups reports it while
// recovery is on (API PointInTimeRecoverySpecification,
// PointInTimeRecoveryDescription). Both are read by the same
// DescribeContinuousBackups.

// FeaturePITR names point-in-time recovery where an endpoint may lack it.
const FeaturePITR = "pointInTimeRecoverySpecification"

// Kinds of the point-in-time recovery steps.
const (
	stepPointInTimeRecover StepKind = "PointInTimeRecovery"
	stepRecoveryPeriod     StepKind = "RecoveryPeriod"
)

func init() {
	register(&feature{
		name:  FeaturePITR,
		kinds: []StepKind{stepPointInTimeRecover, stepRecoveryPeriod},
		uses:  func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.PointInTimeRecoverySpecification != nil },
		desire: func(s source, want *Table) {
			if r := s.PointInTimeRecoverySpecification; r != nil {
				want.PITR, want.PITRDays = aws.Bool(r.PointInTimeRecoveryEnabled), r.RecoveryPeriodInDays
			}
		},
		adopt:  func(r *Reads, have *Table) { have.PITR, have.PITRDays = r.PITR, r.PITRDays },
		passes: []pass{{atPITR, (*planner).updatePITR}, {atRecoveryPeriod, (*planner).updateRecoveryPeriod}},
	})
}

// ObservedPITR is DescribeContinuousBackups' answer: whether recovery is
// on, and its period (nil while it is off).
func ObservedPITR(d *types.ContinuousBackupsDescription) (on *bool, days *int32) {
	if !pitrOn(d) {
		return aws.Bool(false), nil
	}
	return aws.Bool(true), d.PointInTimeRecoveryDescription.RecoveryPeriodInDays
}

func pitrOn(d *types.ContinuousBackupsDescription) bool {
	if d == nil || d.PointInTimeRecoveryDescription == nil {
		return false
	}
	s := d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus
	return s == types.PointInTimeRecoveryStatusEnabled || s == "ENABLING"
}

func (p *planner) updatePITR() {
	if p.want.PITR == nil || p.cur.PITR == nil || *p.want.PITR == *p.cur.PITR {
		return
	}
	in := &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: p.want.PITR}
	if *p.want.PITR {
		in.RecoveryPeriodInDays = p.want.PITRDays
		p.cur.PITRDays = p.want.PITRDays
	}
	p.add(Step{Kind: stepPointInTimeRecover, Description: onOff(*p.want.PITR) + " point-in-time recovery",
		Backups: &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(p.name), PointInTimeRecoverySpecification: in}})
	p.cur.PITR = p.want.PITR
}

// updateRecoveryPeriod changes the period of a table whose recovery is (or
// has just been planned to be) on; turning recovery on carries the period
// in the same call (updatePITR).
func (p *planner) updateRecoveryPeriod() {
	want, cur := p.want.PITRDays, p.cur.PITRDays
	if want == nil || !aws.ToBool(p.want.PITR) || !aws.ToBool(p.cur.PITR) || cur == nil || *cur == *want {
		return
	}
	p.add(Step{Kind: stepRecoveryPeriod, Description: fmt.Sprintf("keep point-in-time recovery for %d days", *want),
		Backups: &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(p.name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true),
				RecoveryPeriodInDays: want}}})
	p.cur.PITRDays = want
}

package dynamodb

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The point-in-time recovery period: UpdateContinuousBackups takes
// RecoveryPeriodInDays (1 to 35, AWS's default 35) with
// PointInTimeRecoveryEnabled, and DescribeContinuousBackups reports it while
// recovery is on (API PointInTimeRecoverySpecification,
// PointInTimeRecoveryDescription). It is read by the same
// DescribeContinuousBackups as the enabled flag.

// pitrDays is the reported recovery period, nil while recovery is off.
func pitrDays(d *types.ContinuousBackupsDescription) *int32 {
	if !pitrOn(d) {
		return nil
	}
	return d.PointInTimeRecoveryDescription.RecoveryPeriodInDays
}

// updateRecoveryPeriod changes the period of a table whose recovery is (or
// has just been planned to be) on; turning recovery on carries the period
// in the same call (updatePITR).
func (p *planner) updateRecoveryPeriod() {
	want, cur := p.want.PITRDays, p.cur.PITRDays
	if want == nil || !aws.ToBool(p.want.PITR) || !aws.ToBool(p.cur.PITR) || cur == nil || *cur == *want {
		return
	}
	p.add(Step{Kind: StepRecoveryPeriod, Description: fmt.Sprintf("keep point-in-time recovery for %d days", *want),
		Backups: &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(p.name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true),
				RecoveryPeriodInDays: want}}})
	p.cur.PITRDays = want
}

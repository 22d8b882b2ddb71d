package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Restore at create: RestoreTableToPointInTime and RestoreTableFromBackup
// create a new table that may override the billing mode, indexes,
// throughput, on-demand limits and SSE; they do not carry over "auto
// scaling, IAM policies, alarms, tags, stream settings, TTL, (PITR restore)
// PITR" (API RestoreTableToPointInTime, RestoreTableFromBackup). So the
// restore carries the spec's overrides, and the planner applies everything
// else afterwards, as it would to any table that differs from its spec.

// ReasonRestoreFailed: the restore was refused for a reason only the spec
// (or the source) can fix.
const ReasonRestoreFailed = "RestoreFailed"

// createByRestore makes the table by restoring it.
func (p *Provider) createByRestore(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable) (*types.TableDescription, error) {
	if p.lacks(ep, featureRestore) {
		return nil, restoreUnsupported(ep, nil)
	}
	name := obj.ResolvedTableName()
	in := createTableInput(name, &obj.Spec, nil)
	for i := range in.GlobalSecondaryIndexes {
		// Warm throughput is no restore override (ibid.): raised afterwards.
		in.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	var desc *types.TableDescription
	var err error
	if pit := obj.Spec.RestoreFrom.PointInTime; pit != nil {
		r := &dynamodb.RestoreTableToPointInTimeInput{TargetTableName: aws.String(name), SourceTableArn: aws.String(pit.SourceTableArn),
			BillingModeOverride: in.BillingMode, ProvisionedThroughputOverride: in.ProvisionedThroughput,
			GlobalSecondaryIndexOverride: in.GlobalSecondaryIndexes, LocalSecondaryIndexOverride: in.LocalSecondaryIndexes,
			OnDemandThroughputOverride: in.OnDemandThroughput, SSESpecificationOverride: in.SSESpecification}
		if pit.UseLatestRestorableTime {
			r.UseLatestRestorableTime = aws.Bool(true)
		} else {
			r.RestoreDateTime = aws.Time(pit.RestoreDateTime.Time)
		}
		var out *dynamodb.RestoreTableToPointInTimeOutput
		if out, err = ep.API.RestoreTableToPointInTime(ctx, r); err == nil {
			desc = out.TableDescription
		}
	} else {
		r := &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String(name), BackupArn: aws.String(obj.Spec.RestoreFrom.BackupArn),
			BillingModeOverride: in.BillingMode, ProvisionedThroughputOverride: in.ProvisionedThroughput,
			GlobalSecondaryIndexOverride: in.GlobalSecondaryIndexes, LocalSecondaryIndexOverride: in.LocalSecondaryIndexes,
			OnDemandThroughputOverride: in.OnDemandThroughput, SSESpecificationOverride: in.SSESpecification}
		var out *dynamodb.RestoreTableFromBackupOutput
		if out, err = ep.API.RestoreTableFromBackup(ctx, r); err == nil {
			desc = out.TableDescription
		}
	}
	switch errorCode(err) {
	case "":
		return desc, nil
	case "UnknownOperationException":
		p.markUnsupported(ep, obj, featureRestore, err)
		return nil, restoreUnsupported(ep, err)
	case "TableAlreadyExistsException":
		return nil, &tableExistsError{err}
	case "TableNotFoundException", "SourceTableNotFoundException", "BackupNotFoundException",
		"PointInTimeRecoveryUnavailableException", "InvalidRestoreTimeException":
		// The source, backup or time the spec names cannot be restored.
		return nil, providers.Terminal(ReasonRestoreFailed, stable(err))
	case "BackupInUseException":
		return nil, providers.RetryAfter(throttledDelay, ReasonTableBusy, stable(err))
	}
	return nil, err
}

// restoreUnsupported: an endpoint without the restore APIs (DynamoDB Local)
// does not get an empty table instead: that would look like data loss.
func restoreUnsupported(ep *endpoint, err error) error {
	why := "it lacks the restore APIs"
	if err != nil {
		why = stable(err).Error()
	}
	return providers.Terminalf(ReasonRestoreFailed, "the DynamoDB endpoint for %s cannot restore tables (%s): "+
		"the table is not created empty instead; remove spec.restoreFrom (in a new object) to create an empty table", ep.Region, why)
}

// tableExistsError is a restore's TableAlreadyExistsException: the same
// race as CreateTable's ResourceInUseException.
type tableExistsError struct{ err error }

func (e *tableExistsError) Error() string { return e.err.Error() }
func (e *tableExistsError) Unwrap() error { return e.err }

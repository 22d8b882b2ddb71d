package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
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
func (p *Provider) createByRestore(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (*types.TableDescription, error) {
	if p.clients.Lacks(ep, featureRestore) {
		return nil, restoreUnsupported(ep, nil)
	}
	if err := p.checkRestoreSource(ctx, ep, obj); err != nil {
		return nil, err
	}
	name := obj.ResolvedTableName()
	in := plan.CreateTableInput(name, &obj.Spec, nil)
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
	switch access.ErrorCode(err) {
	case "":
		p.tagRestored(ctx, ep, obj, desc)
		return desc, nil
	case "UnknownOperationException":
		p.markUnsupported(ep, obj, featureRestore, err)
		return nil, restoreUnsupported(ep, err)
	case "TableAlreadyExistsException":
		return nil, &tableExistsError{err}
	case "TableNotFoundException", "SourceTableNotFoundException", "BackupNotFoundException",
		"PointInTimeRecoveryUnavailableException", "InvalidRestoreTimeException":
		// The source, backup or time the spec names cannot be restored.
		return nil, providers.Terminal(ReasonRestoreFailed, access.Stable(err))
	case "BackupInUseException":
		return nil, providers.RetryAfter(access.ThrottledDelay, access.ReasonTableBusy, access.Stable(err))
	}
	return nil, err
}

// restoreUnsupported: an endpoint without the restore APIs (DynamoDB Local)
// does not get an empty table instead: that would look like data loss.
func restoreUnsupported(ep *access.Endpoint, err error) error {
	why := "it lacks the restore APIs"
	if err != nil {
		why = access.Stable(err).Error()
	}
	return providers.Terminalf(ReasonRestoreFailed, "the DynamoDB endpoint for %s cannot restore tables (%s): "+
		"the table is not created empty instead; remove spec.restoreFrom (in a new object) to create an empty table", ep.Region, why)
}

// tableExistsError is a restore's TableAlreadyExistsException: the same
// race as CreateTable's ResourceInUseException.
type tableExistsError struct{ err error }

func (e *tableExistsError) Error() string { return e.err.Error() }
func (e *tableExistsError) Unwrap() error { return e.err }

// tagRestored gives a restored table its tags, Tether's owner tags among
// them, right after the restore answered: the restore APIs take no tags
// (API RestoreTableToPointInTime, RestoreTableFromBackup), and until the
// owner tag is there only this process's memory, the status write that
// follows and the restore record (restoredFor) prove the table is obj's.
// A refusal (a table still CREATING may not take tags yet) is left to the
// plan, which tags it like any table whose tags differ from the spec.
func (p *Provider) tagRestored(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription) {
	if desc == nil || p.ownerTags(ep, obj) == nil {
		return
	}
	want := p.wantedTags(ep, obj)
	var tags []types.Tag
	for _, k := range slices.Sorted(maps.Keys(want)) {
		tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(want[k])})
	}
	_, err := ep.API.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: desc.TableArn, Tags: tags})
	if access.IsUnknownOperation(err) {
		p.markUnsupported(ep, obj, plan.FeatureTags, err)
	}
}

// restoredFor says whether a table with no owner tag is the one obj's
// restore made, for a manager that stopped between the restore and both
// the tagging and the status write: before the restore, the reconciler
// recorded on the object that it was about to create the table
// (tether.dev/create-started), and the spec names the source, which cannot
// change; the table must have been restored from that very source, and
// made no earlier than that record.
func restoredFor(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	from, summary := obj.Spec.RestoreFrom, d.RestoreSummary
	if from == nil || summary == nil || !interruptedCreate(obj, d) {
		return false
	}
	if pit := from.PointInTime; pit != nil {
		return aws.ToString(summary.SourceTableArn) == pit.SourceTableArn
	}
	return aws.ToString(summary.SourceBackupArn) == from.BackupArn
}

// checkRestoreSource refuses a restore source that obj's namespace may not
// read. Unless the AWSAccount allows any source of the account
// (spec.tenancy.restoreSources: Account), the source must be a table, or a
// backup of a table, that a DynamoDBTable in obj's own namespace holds in
// the same account and region; the proof is the table identity Tether
// recorded for that object, compared with the live table's (point in time)
// or with the backup's source table (DescribeBackup), so a same-named table
// made by someone else, or a backup of an earlier table of that name, does
// not pass.
func (p *Provider) checkRestoreSource(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if trustsFully(ep) || tenancyOf(ep).RestoreSources == awsv1alpha1.RestoreSourcesAccount {
		return nil
	}
	source := restoreSource(obj.Spec.RestoreFrom)
	notAllowed := func(why string) error {
		return refusal(reasonRestoreNotAllowed, "spec.restoreFrom names %s, %s; AWSAccount %s lets namespace %s restore only its own tables "+
			"(spec.tenancy.restoreSources): nothing is created", source, why, ep.Identity, obj.Namespace)
	}
	tableArn, name, ok := sourceTable(source)
	if !ok {
		return notAllowed("which is not a DynamoDB table or backup ARN")
	}
	holder, err := p.sourceHolder(ctx, ep, obj, tableArn, name)
	if err != nil || holder == nil {
		if err == nil {
			err = notAllowed("a table no DynamoDBTable in this namespace holds in this account and region")
		}
		return err
	}
	id, err := p.sourceIdentity(ctx, ep, obj, name)
	if err != nil {
		return err
	}
	if id != holder.Status.TableID {
		return notAllowed(fmt.Sprintf("which is not the table DynamoDBTable %s holds (another table of that name)", holder.Name))
	}
	return nil
}

func restoreSource(from *awsv1alpha1.RestoreSource) string {
	if from.PointInTime != nil {
		return from.PointInTime.SourceTableArn
	}
	return from.BackupArn
}

// sourceTable splits a table ARN (arn:aws:dynamodb:<region>:<account>:
// table/<name>) or a backup ARN (the same, then /backup/<id>) into the
// table's ARN and name.
func sourceTable(arn string) (tableArn, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" || parts[2] != "dynamodb" || !strings.HasPrefix(parts[5], "table/") {
		return "", "", false
	}
	rest := strings.TrimPrefix(parts[5], "table/")
	name, _, _ = strings.Cut(rest, "/")
	if name == "" {
		return "", "", false
	}
	return strings.Join(parts[:5], ":") + ":table/" + name, name, true
}

// sourceHolder is the DynamoDBTable of obj's namespace that holds the
// source table in the endpoint's account and region, nil when none does.
func (p *Provider) sourceHolder(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, tableArn, name string) (*awsv1alpha1.DynamoDBTable, error) {
	if p.opts.Reader == nil {
		return nil, nil
	}
	var list awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &list, client.InNamespace(obj.Namespace), client.MatchingFields{IndexTableName: name}); err != nil {
		return nil, err
	}
	for i := range list.Items {
		c := &list.Items[i]
		if c.UID == obj.UID || c.Status.TableArn != tableArn || c.Status.TableID == "" {
			continue
		}
		t, err := p.resolve(ctx, c)
		if err != nil || t.Region != ep.Region {
			continue
		}
		if account, _ := p.clients.AccountOf(t.AWSAccount); account == ep.Account {
			return c, nil
		}
	}
	return nil, nil
}

// sourceIdentity is the identity of the table the restore would read: the
// live table of that name (point in time), or the table the backup was
// made of.
func (p *Provider) sourceIdentity(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, name string) (string, error) {
	from := obj.Spec.RestoreFrom
	if from.PointInTime != nil {
		d, err := describeTable(ctx, ep.API, name)
		if access.IsNotFound(err) {
			return "", providers.Terminal(ReasonRestoreFailed, access.Stable(err))
		}
		if err != nil {
			return "", access.Classify(err)
		}
		return tableIdentity(d), nil
	}
	out, err := ep.API.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(from.BackupArn)})
	switch {
	case access.IsUnknownOperation(err):
		p.markUnsupported(ep, obj, featureRestore, err)
		return "", restoreUnsupported(ep, err)
	case access.ErrorCode(err) == "BackupNotFoundException":
		return "", providers.Terminal(ReasonRestoreFailed, access.Stable(err))
	case err != nil:
		return "", access.Classify(err)
	case out.BackupDescription == nil || out.BackupDescription.SourceTableDetails == nil:
		return "", errors.New("DescribeBackup answered without the backup's source table")
	}
	return sourceTableIdentity(out.BackupDescription.SourceTableDetails), nil
}

// sourceTableIdentity is tableIdentity for a backup's source table.
func sourceTableIdentity(s *types.SourceTableDetails) string {
	return tableIdentity(&types.TableDescription{TableId: s.TableId, TableArn: s.TableArn, CreationDateTime: s.TableCreationDateTime})
}

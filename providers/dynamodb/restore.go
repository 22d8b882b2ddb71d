package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

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
	source, err := p.checkRestoreSource(ctx, ep, obj)
	if err != nil {
		return nil, err
	}
	name := obj.ResolvedTableName()
	in := plan.CreateTableInput(name, &obj.Spec, nil)
	for i := range in.GlobalSecondaryIndexes {
		// Warm throughput is no restore override (ibid.): raised afterwards.
		in.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	// Tether's own record of the restore it begins: should the answer be
	// lost, the table it made is recognised by it (restoredFor).
	key := ep.TableKey(name)
	p.restores.mark(key, restoreStart{UID: string(obj.UID), source: source, at: time.Now()})
	var desc *types.TableDescription
	if pit := obj.Spec.RestoreFrom.PointInTime; pit != nil {
		r := &dynamodb.RestoreTableToPointInTimeInput{TargetTableName: aws.String(name), SourceTableArn: aws.String(source),
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
		r := &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String(name), BackupArn: aws.String(source),
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
		p.restores.mark(key, restoreStart{}) // the answer is the record now
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
// owner tag is there only this process's record of the restore proves the
// table is obj's. A refusal (a table still CREATING may not take tags
// yet) is left to the plan, which tags it like any table whose tags differ
// from the spec.
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

// restoredFor says whether a table with no owner tag is the one a restore
// Tether began for obj made, whose answer it did not get (the SDK's retry
// of a restore whose first answer was lost meets TableAlreadyExists): by
// Tether's own record of that restore (which object, the source it sent,
// when), the table must have been restored from that very source and made
// no earlier than the restore began. The record is in memory: the
// tether.dev/create-started note on the object is anyone's to write, and
// proves nothing.
func (p *Provider) restoredFor(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	began, summary := p.restores.of(ep.TableKey(obj.ResolvedTableName())), d.RestoreSummary
	if began.UID != string(obj.UID) || summary == nil || d.CreationDateTime == nil || d.CreationDateTime.Before(began.at.Add(-clockSkew)) {
		return false
	}
	if obj.Spec.RestoreFrom != nil && obj.Spec.RestoreFrom.PointInTime != nil {
		return aws.ToString(summary.SourceTableArn) == began.source
	}
	return aws.ToString(summary.SourceBackupArn) == began.source
}

// checkRestoreSource refuses a restore source that obj's namespace may not
// read, and returns the source to send AWS: the one it checked, in AWS's
// own spelling, so that what AWS restores is what was checked. Unless the
// AWSAccount allows any source of the account
// (spec.tenancy.restoreSources: Account; the operator's own identity
// allows any), the source must be a table, or a backup of a table, that a
// DynamoDBTable in obj's own namespace holds in the same account and
// region:
//   - a point-in-time source is the live table of that name in the
//     endpoint's account and region, and the spec's ARN must be its ARN
//     exactly (one naming another Region or account, whose table of the
//     same name AWS would restore, is refused);
//   - a backup's source table (DescribeBackup) must be that live table,
//     the same table (its identity), not an earlier one of that name;
//   - the holder proves the live table is its own as ownership is proved
//     (ownership.go): Tether's own record or the table's owner tag, never
//     the holder's status (on an endpoint without tags, the status only
//     where obj's namespace may adopt).
func (p *Provider) checkRestoreSource(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (string, error) {
	from := obj.Spec.RestoreFrom
	source := restoreSource(from)
	if trustsFully(ep) || tenancyOf(ep).RestoreSources == awsv1alpha1.RestoreSourcesAccount {
		return source, nil
	}
	notAllowed := func(why string) error {
		return refusal(reasonRestoreNotAllowed, "spec.restoreFrom names %s, %s; AWSAccount %s lets namespace %s restore only its own tables "+
			"(spec.tenancy.restoreSources): nothing is created", source, why, ep.Identity, obj.Namespace)
	}
	name, ok := sourceTableName(source, from.PointInTime == nil)
	if !ok {
		return "", notAllowed("which is not a DynamoDB table or backup ARN")
	}
	holders, err := p.sourceHolders(ctx, ep, obj, name)
	if err != nil {
		return "", err
	}
	if len(holders) == 0 {
		return "", notAllowed("a table no DynamoDBTable in this namespace holds in this account and region")
	}
	live, err := describeTable(ctx, ep.API, name)
	switch {
	case access.IsNotFound(err) && from.PointInTime != nil:
		return "", providers.Terminal(ReasonRestoreFailed, access.Stable(err))
	case access.IsNotFound(err):
		return "", notAllowed("a backup of a table no DynamoDBTable in this namespace holds now")
	case err != nil:
		return "", access.Classify(err)
	}
	canonical := aws.ToString(live.TableArn)
	if from.PointInTime != nil && source != canonical {
		return "", notAllowed(fmt.Sprintf("which is not the ARN of table %s of this account and region (%s)", name, canonical))
	}
	if from.PointInTime == nil {
		backup, err := p.describeSourceBackup(ctx, ep, obj, source)
		if err != nil {
			return "", err
		}
		if sourceTableIdentity(backup.SourceTableDetails) != TableIdentity(live) ||
			aws.ToString(backup.SourceTableDetails.TableArn) != canonical {
			return "", notAllowed(fmt.Sprintf("which is not a backup of the table %s holds (an earlier or another table of that name)",
				holderNames(holders)))
		}
		canonical = aws.ToString(backup.BackupDetails.BackupArn)
	}
	held, err := p.holdsSource(ctx, ep, obj, holders, live)
	if err != nil {
		return "", err
	}
	if !held {
		return "", notAllowed(fmt.Sprintf("which is not the table DynamoDBTable %s holds (another table of that name, "+
			"or one Tether has no proof it made for it)", holderNames(holders)))
	}
	return canonical, nil
}

func restoreSource(from *awsv1alpha1.RestoreSource) string {
	if from.PointInTime != nil {
		return from.PointInTime.SourceTableArn
	}
	return from.BackupArn
}

// sourceTableName reads the table's name from a table ARN
// (arn:<partition>:dynamodb:<region>:<account>:table/<name>) or, when
// backup, a backup ARN (the same, then /backup/<id>). Anything else does
// not parse: AWS is then never asked about it.
func sourceTableName(arn string, backup bool) (string, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", false
	}
	resource, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return "", false
	}
	name, rest, hasRest := strings.Cut(resource, "/")
	if name == "" || hasRest != backup || (backup && !strings.HasPrefix(rest, "backup/")) {
		return "", false
	}
	return name, true
}

// sourceHolders are the DynamoDBTables of obj's namespace, obj aside, that
// name the source table and resolve to the endpoint's account and region:
// those that may hold it. Whether one does is for holdsSource to prove.
func (p *Provider) sourceHolders(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, name string) ([]*awsv1alpha1.DynamoDBTable, error) {
	if p.opts.Reader == nil {
		return nil, nil
	}
	var list awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &list, client.InNamespace(obj.Namespace), client.MatchingFields{IndexTableName: name}); err != nil {
		return nil, err
	}
	var out []*awsv1alpha1.DynamoDBTable
	for i := range list.Items {
		c := &list.Items[i]
		if c.UID == obj.UID || c.ResolvedTableName() != name || !c.DeletionTimestamp.IsZero() {
			continue
		}
		t, err := p.resolve(ctx, c)
		if err != nil || t.Region != ep.Region {
			continue
		}
		if account, _ := p.clients.AccountOf(t.AWSAccount); account == ep.Account {
			out = append(out, c)
		}
	}
	return out, nil
}

// holdsSource says whether one of the holders owns the live source table,
// by the proofs of ownership.go: Tether's own record, the table's owner
// tag, or, where the endpoint holds no tags, the holder's status for a
// namespace that may adopt there.
func (p *Provider) holdsSource(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, holders []*awsv1alpha1.DynamoDBTable, live *types.TableDescription) (bool, error) {
	id, rec := TableIdentity(live), p.owners.of(ep.TableKey(aws.ToString(live.TableName)))
	for _, h := range holders {
		if rec == (ownerRecord{UID: string(h.UID), TableID: id}) {
			return true, nil
		}
	}
	owner, err := p.ownerTagOf(ctx, ep, obj, live)
	if err != nil {
		return false, err
	}
	for _, h := range holders {
		if owner != "" && owner == string(h.UID) {
			return true, nil
		}
		if owner == "" {
			if by, err := p.ownsByStatus(ctx, ep, h, live); err != nil || by {
				return by, err
			}
		}
	}
	return false, nil
}

func holderNames(holders []*awsv1alpha1.DynamoDBTable) string {
	names := make([]string, len(holders))
	for i, h := range holders {
		names[i] = h.Name
	}
	return strings.Join(names, ", ")
}

// describeSourceBackup is DescribeBackup of the backup the restore would
// read.
func (p *Provider) describeSourceBackup(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, arn string) (*types.BackupDescription, error) {
	out, err := ep.API.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	switch {
	case access.IsUnknownOperation(err):
		p.markUnsupported(ep, obj, featureRestore, err)
		return nil, restoreUnsupported(ep, err)
	case access.ErrorCode(err) == "BackupNotFoundException":
		return nil, providers.Terminal(ReasonRestoreFailed, access.Stable(err))
	case err != nil:
		return nil, access.Classify(err)
	case out.BackupDescription == nil || out.BackupDescription.SourceTableDetails == nil || out.BackupDescription.BackupDetails == nil:
		return nil, errors.New("DescribeBackup answered without the backup's details or source table")
	}
	return out.BackupDescription, nil
}

// sourceTableIdentity is TableIdentity for a backup's source table.
func sourceTableIdentity(s *types.SourceTableDetails) string {
	return TableIdentity(&types.TableDescription{TableId: s.TableId, TableArn: s.TableArn, CreationDateTime: s.TableCreationDateTime})
}

package dynamodb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Import from S3 at creation (spec.importFrom): ImportTable creates the
// table and fills it from S3 instead of CreateTable
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html).
// Its answer comes at once, the table long after: DescribeTable does not
// find it for a while, then shows it CREATING, and ACTIVE a little before
// the import ends. DescribeTable says nothing of the import, so Tether
// keeps the ImportArn (its own record, and status.import) and follows the
// import with DescribeImport
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html):
// while it is IN_PROGRESS the table is AWS still applying the import, not
// drift, and nothing is sent. Once it has ended the table is managed like
// any other: what ImportTable takes no part of (tags, Tether's owner tag
// among them, stream, TTL, ...) follows as updates.
//
// An import that FAILED leaves an ACTIVE table with the rows that were
// valid (a bad line fails the import, not the table), or no table at all
// (a missing bucket). Tether names AWS's reason in the Ready condition and
// never deletes the table nor imports again: the rows that are there may
// be all the user has, and another import of the same name is not
// refused by AWS but races the first.

// ReasonImportFailed: the import from S3 FAILED (AWS's reason in the
// message) and left the table with the rows that were valid; the table is
// managed, only Ready says so.
const ReasonImportFailed = "ImportFailed"

// ReasonImportLeftNoTable: the import ended without a table (it FAILED
// before it made one, or the table was deleted since), or cannot be made
// with the object's token; Tether stops: it does not import again by
// itself.
const ReasonImportLeftNoTable = "ImportLeftNoTable"

// reasonImporting: AWS is still importing; nothing is sent meanwhile.
const reasonImporting = "Importing"

// importFailedRecheck is how often a table whose import FAILED is looked
// at: only the user can change that (a new object), so rarely.
const importFailedRecheck = 10 * time.Minute

// importToken is the ImportTable ClientToken of obj's import: the same for
// one generation of the object, so that a repeated ImportTable (a lost
// answer, a restart) "ha[s] the same effect as one single call" (API
// ImportTable) and answers the import already running instead of starting
// a second one for the same name, which AWS would accept. A hash keeps it
// short whatever the UID.
func importToken(obj *awsv1alpha1.DynamoDBTable) string { return importTokenOf(obj, obj.Generation) }

func importTokenOf(obj *awsv1alpha1.DynamoDBTable, generation int64) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", obj.UID, generation)))
	return hex.EncodeToString(sum[:16])
}

// createByImport starts the import that creates obj's table. It is not
// sent for a generation whose import has ended (importEnded), nor while
// an import Tether began for obj runs (Observe waits for it first).
func (p *Provider) createByImport(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if p.clients.Lacks(ep, featureImport) {
		return importUnsupported(ep, nil)
	}
	if err := p.importEnded(ep, obj); err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	out, err := ep.API.ImportTable(ctx, plan.ImportTableInput(name, &obj.Spec, importToken(obj)))
	switch access.ErrorCode(err) {
	case "":
	case "UnknownOperationException":
		p.markUnsupported(ep, obj, featureImport, err)
		return importUnsupported(ep, err)
	case "ResourceInUseException":
		// "A table with the same name already exists" (API ImportTable):
		// the same race as CreateTable's.
		return &tableExistsError{err}
	case "ImportConflictException":
		// The token names another import (API ImportTable): only a new
		// generation of the object makes a new token.
		return providers.Terminal(ReasonImportLeftNoTable, access.Stable(err))
	default:
		return access.Classify(err)
	}
	d := out.ImportTableDescription
	if d == nil || aws.ToString(d.ImportArn) == "" {
		return errors.New("ImportTable answered without an ImportArn")
	}
	p.imports.mark(ep.TableKey(name), importRecord{UID: string(obj.UID), generation: obj.Generation, arn: aws.ToString(d.ImportArn),
		tableArn: aws.ToString(d.TableArn), tableID: aws.ToString(d.TableId), at: time.Now(), status: d.ImportStatus})
	obj.Status.Import = importStatusOf(d, obj.Generation)
	p.event(obj, corev1.EventTypeNormal, "ImportStarted", "Create", "DynamoDB accepted the import of %s into table %s (%s)",
		importSourceOf(obj), name, aws.ToString(d.ImportArn))
	return nil
}

// importUnsupported: an endpoint without ImportTable (DynamoDB Local) does
// not get an empty table instead: that would look like data loss.
func importUnsupported(ep *access.Endpoint, err error) error {
	why := "it lacks ImportTable"
	if err != nil {
		why = access.Stable(err).Error()
	}
	return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint for %s cannot import from S3 (%s): "+
		"the table is not created empty instead; remove spec.importFrom (in a new object) to create an empty table", ep.Region, why)
}

// importEnded refuses another import for a generation whose import has
// ended, by Tether's record or the status (which can only make Tether
// refrain, never act): with the same token AWS would answer that import
// again, and a failed import is never retried by itself.
func (p *Provider) importEnded(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	rec := p.imports.of(ep.TableKey(obj.ResolvedTableName()))
	if rec.UID == string(obj.UID) && rec.generation == obj.Generation && rec.ended() {
		return importWithoutTable(obj)
	}
	if st := obj.Status.Import; st != nil && st.Generation == obj.Generation && (importRecord{status: types.ImportStatus(st.ImportStatus)}).ended() {
		return importWithoutTable(obj)
	}
	return nil
}

// importWithoutTable is the import that ended with no table to show for
// it: FAILED before it made one (a bucket that is not there), or a table
// deleted since.
func importWithoutTable(obj *awsv1alpha1.DynamoDBTable) error {
	st := obj.Status.Import
	return providers.Terminalf(ReasonImportLeftNoTable, "the import %s of %s ended %s%s and table %s does not exist: "+
		"Tether does not import again by itself; fix the source, then recreate the object (importFrom cannot change)",
		st.ImportArn, importSourceOf(obj), st.ImportStatus, failureOf(st), obj.ResolvedTableName())
}

// importInFlight is the import Tether began for obj that has not ended, if
// any: whatever the generation, so that a spec changed meanwhile does not
// start a second import of the same name.
func (p *Provider) importInFlight(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (importRecord, bool) {
	rec := p.imports.of(ep.TableKey(obj.ResolvedTableName()))
	return rec, rec.UID == string(obj.UID) && !rec.ended()
}

// followImport asks DescribeImport how the import Tether began for obj is
// going, shows it in the status, and says whether obj must wait for it:
// while it is IN_PROGRESS the table is AWS's still. One call a look, and
// none once the import has ended.
func (p *Provider) followImport(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (providers.Observation, bool, error) {
	rec, ok := p.importInFlight(ep, obj)
	if !ok {
		return providers.Observation{}, false, nil
	}
	out, err := ep.API.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(rec.arn)})
	if err != nil {
		return providers.Observation{}, true, access.Classify(err)
	}
	d := out.ImportTableDescription
	if d == nil {
		return providers.Observation{}, true, errors.New("DescribeImport answered without the import")
	}
	rec.status = d.ImportStatus
	p.imports.mark(ep.TableKey(obj.ResolvedTableName()), rec)
	obj.Status.Import = importStatusOf(d, rec.generation)
	if !rec.ended() {
		return p.transient(reasonImporting, fmt.Sprintf("DynamoDB is importing %s into table %s (%s: %d items processed, %d imported): "+
			"the table is not changed until the import ends", importSourceOf(obj), obj.ResolvedTableName(), d.ImportStatus,
			d.ProcessedItemCount, d.ImportedItemCount)), true, nil
	}
	if d.ImportStatus == types.ImportStatusFailed {
		p.event(obj, corev1.EventTypeWarning, ReasonImportFailed, "Observe", "the import of %s FAILED%s", importSourceOf(obj), failureOf(obj.Status.Import))
	}
	return providers.Observation{}, false, nil
}

// importedFor says whether the table is the one ImportTable answered
// Tether for obj: the same table id, or where none is reported, the same
// ARN and made no earlier than the import began. Until Tether's owner tag
// is on the table (ImportTable takes no tags; the plan tags it once the
// import has ended), this record is the proof the table is obj's.
func (p *Provider) importedFor(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	rec := p.imports.of(ep.TableKey(obj.ResolvedTableName()))
	if rec.UID != string(obj.UID) {
		return false
	}
	if id := aws.ToString(d.TableId); id != "" && rec.tableID != "" {
		return id == rec.tableID
	}
	return rec.tableArn != "" && aws.ToString(d.TableArn) == rec.tableArn && d.CreationDateTime != nil &&
		!d.CreationDateTime.Before(rec.at.Add(-clockSkew))
}

// importFailure is what the Ready condition says of a table whose import
// FAILED: it exists, with the rows that were valid.
func importFailure(obj *awsv1alpha1.DynamoDBTable) string {
	st := obj.Status.Import
	if obj.Spec.ImportFrom == nil || st == nil || st.ImportStatus != string(types.ImportStatusFailed) {
		return ""
	}
	return fmt.Sprintf("the import %s of %s FAILED%s: table %s is ACTIVE with the %d items that were imported, and managed; "+
		"Tether neither deletes it nor imports again (fix the source, then recreate the object to import anew)",
		st.ImportArn, importSourceOf(obj), failureOf(st), obj.ResolvedTableName(), st.ImportedItemCount)
}

func failureOf(st *awsv1alpha1.ImportStatus) string {
	if st.FailureCode == "" && st.FailureMessage == "" {
		return ""
	}
	return fmt.Sprintf(" (%s: %s)", st.FailureCode, st.FailureMessage)
}

// importSourceOf names the spec's source as s3://bucket/prefix.
func importSourceOf(obj *awsv1alpha1.DynamoDBTable) string {
	if obj.Spec.ImportFrom == nil {
		return ""
	}
	src := obj.Spec.ImportFrom.S3BucketSource
	return "s3://" + src.S3Bucket + "/" + src.S3KeyPrefix
}

func importStatusOf(d *types.ImportTableDescription, generation int64) *awsv1alpha1.ImportStatus {
	return &awsv1alpha1.ImportStatus{ImportArn: aws.ToString(d.ImportArn), ImportStatus: string(d.ImportStatus), Generation: generation,
		ProcessedItemCount: d.ProcessedItemCount, ImportedItemCount: d.ImportedItemCount, ErrorCount: d.ErrorCount,
		FailureCode: aws.ToString(d.FailureCode), FailureMessage: aws.ToString(d.FailureMessage)}
}

// reclaimImport proves, after a restart, that a table still being imported
// is obj's: Tether's record of its ImportTable answer was in memory, and
// ImportTable takes no tags, so nothing else says so until the import has
// ended. It asks AWS again with the import's own ClientToken (of the
// generation status.import names, which only says which token to try):
// while that import runs AWS answers it, and starts none (ACK's live
// probes, aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/import.md); for any other token, or once the import has
// ended, the table exists and AWS refuses (ResourceInUseException). Only
// an answer naming this very table is taken, as the answer to Tether's
// first call would be.
func (p *Provider) reclaimImport(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	st, key := obj.Status.Import, ep.TableKey(obj.ResolvedTableName())
	if obj.Spec.ImportFrom == nil || st == nil || st.ImportStatus != string(types.ImportStatusInProgress) ||
		p.imports.of(key).UID != "" || p.clients.Lacks(ep, featureImport) {
		return false
	}
	out, err := ep.API.ImportTable(ctx, plan.ImportTableInput(obj.ResolvedTableName(), &obj.Spec, importTokenOf(obj, st.Generation)))
	if err != nil || out.ImportTableDescription == nil {
		return false
	}
	a := out.ImportTableDescription
	rec := importRecord{UID: string(obj.UID), generation: st.Generation, arn: aws.ToString(a.ImportArn),
		tableArn: aws.ToString(a.TableArn), tableID: aws.ToString(a.TableId), at: time.Now(), status: a.ImportStatus}
	if rec.tableID == "" || rec.tableID != aws.ToString(d.TableId) {
		return false
	}
	p.imports.mark(key, rec)
	return true
}

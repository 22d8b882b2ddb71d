package awstest

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// tableImportDuration is an import in the model: several of the adapter's
// looks (TransitionPoll, 500 ms) see the table unseen, then CREATING, then
// ACTIVE while the import still runs, so that a resend, a step or a
// second import meanwhile would be seen.
const tableImportDuration = 6 * time.Second

// importFrom makes a DynamoDBTable import its table from the bucket's
// prefix, DYNAMODB_JSON.
func importFrom(bucket, prefix string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ImportFrom = &awsv1alpha1.ImportSource{InputFormat: awsv1alpha1.ImportFormatDynamoDBJSON,
			S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: bucket, S3KeyPrefix: prefix}}
		o.Spec.Tags = map[string]string{"team": "import"}
	}
}

// MODEL (DynamoDB Local has no ImportTable: it answers
// UnknownOperationException, internal/ddbgap/imports_test.go; the model
// reads the rows from its in-memory S3): a DynamoDBTable with importFrom
// is created by ImportTable, never CreateTable; while the import is
// IN_PROGRESS its progress is in the status and the table is not Ready,
// nothing planned or sent; once COMPLETED it is Ready with the counts in
// the status and Tether's owner tag on the table (ImportTable takes no
// tags). An import that FAILED on a bad line leaves the table ACTIVE with
// the good rows: Ready names AWS's reason, the table is tagged and kept,
// and there is no DeleteTable and no second ImportTable. importFrom cannot
// be changed afterwards.
func TestDynamoDBTableImportFromS3OnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-import", ddbgap.Options{Tagging: true, ImportDuration: tableImportDuration, S3: map[string]map[string]string{
		"exports": {
			"good/1.json": `{"Item":{"pk":{"S":"a"}}}` + "\n" + `{"Item":{"pk":{"S":"b"}}}` + "\n" + `{"Item":{"pk":{"S":"c"}}}` + "\n",
			"bad/1.json":  `{"Item":{"pk":{"S":"a"}}}` + "\n" + `{"Item":{"other":{"S":"no key"}}}` + "\n" + `{"Item":{"pk":{"S":"c"}}}` + "\n",
		},
	}})
	ctx := context.Background()
	good := w.table("imported", importFrom("exports", "good/"))
	bad := w.table("import-bad", importFrom("exports", "bad/"))
	s.Create(t, good)
	s.Create(t, bad)
	ownerTag := func(g Gomega, o *awsv1alpha1.DynamoDBTable) string {
		out, err := w.raw.ListTagsOfResource(ctx, &awsdynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(o.Status.TableArn)})
		g.Expect(err).NotTo(HaveOccurred())
		for _, tag := range out.Tags {
			if aws.ToString(tag.Key) == dynamodb.TagOwnerUID {
				return aws.ToString(tag.Value)
			}
		}
		return ""
	}
	rows := func(table string) int32 {
		out, err := w.raw.Scan(ctx, &awsdynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Count
	}

	// IN_PROGRESS: AWS still applying the import, not drift.
	var running *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		running = s.Get(g, good)
		return ctrltest.Condition(running, "Ready")
	}, ctrltest.DDBTimeout, 20*time.Millisecond).Should(Equal("False/Importing"))
	g.Expect(running.Status.Import).NotTo(BeNil())
	g.Expect(running.Status.Import.ImportStatus).To(Equal("IN_PROGRESS"))
	g.Expect(running.Status.Import.ImportArn).To(ContainSubstring(":table/" + good.Spec.TableName + "/import/"))
	g.Expect(running.Status.PendingPlan).To(BeEmpty(), "nothing is planned while AWS imports")
	// The table found (CREATING, then ACTIVE a little before the import
	// ends) is still AWS's: nothing is sent, not even the owner tag.
	g.Eventually(func(g Gomega) string {
		running = s.Get(g, good)
		return running.Status.TableStatus + " " + ctrltest.Condition(running, "Ready")
	}, ctrltest.DDBTimeout, 20*time.Millisecond).Should(BeElementOf("CREATING False/Importing", "ACTIVE False/Importing"))
	g.Expect(w.gap.Calls("TagResource")).To(BeZero(), "no step while AWS imports")

	ready := s.EventuallyReady(t, good)
	g.Expect(ready.Status.Import.ImportStatus).To(Equal("COMPLETED"))
	g.Expect([]int64{ready.Status.Import.ProcessedItemCount, ready.Status.Import.ImportedItemCount}).To(Equal([]int64{3, 3}))
	g.Expect(rows(good.Spec.TableName)).To(BeEquivalentTo(3))
	g.Expect(ownerTag(g, ready)).To(Equal(string(ready.UID)), "tagged with its owner once the import ended")

	// FAILED on a bad line: the table ACTIVE with the good rows, managed,
	// and AWS's reason in Ready.
	var failed *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		failed = s.Get(g, bad)
		return ctrltest.Condition(failed, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/" + dynamodb.ReasonImportFailed))
	g.Expect(meta.FindStatusCondition(failed.Status.Conditions, "Ready").Message).To(And(
		ContainSubstring("FAILED (ItemValidationError: the model: 1 line(s) are not items of the table"),
		ContainSubstring("ACTIVE with the 2 items that were imported")))
	g.Expect(ctrltest.Condition(failed, "Synced")).To(Equal("True/Success"), "nothing failed on Tether's side")
	g.Expect(failed.Status.Import.ImportStatus).To(Equal("FAILED"))
	g.Expect(failed.Status.Import.ErrorCount).To(BeEquivalentTo(1))
	g.Expect(failed.Status.TableStatus).To(Equal("ACTIVE"))
	g.Expect(rows(bad.Spec.TableName)).To(BeEquivalentTo(2), "the good rows kept")
	g.Eventually(func(g Gomega) string { return ownerTag(g, s.Get(g, bad)) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal(string(failed.UID)))

	// One ImportTable per object, never CreateTable, and a failed import
	// neither deleted nor imported again.
	g.Consistently(func() []int {
		return []int{w.gap.Calls("ImportTable"), w.gap.Calls("CreateTable"), w.gap.Calls("DeleteTable")}
	}, 3*time.Second, ctrltest.DDBPoll).Should(Equal([]int{2, 0, 0}))
	g.Expect(ctrltest.Condition(s.Get(g, bad), "Ready")).To(Equal("False/" + dynamodb.ReasonImportFailed))

	// importFrom cannot change: the API server says so.
	current := s.Get(g, good)
	current.Spec.ImportFrom.S3BucketSource.S3KeyPrefix = "other/"
	err := s.Client.Update(ctx, current)
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(ContainSubstring("importFrom cannot be changed after creation (an import only creates a table)"))
}

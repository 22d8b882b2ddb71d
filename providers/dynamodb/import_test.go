package dynamodb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
)

// REAL PEER (DynamoDB Local answers ImportTable UnknownOperationException):
// the object stops with UnsupportedByEndpoint saying so; no empty table is
// created in its place, and once the endpoint is known to lack it, the next
// object does not even ask.
func TestImportOnDynamoDBLocalCreatesNothing(t *testing.T) {
	f := localFixture(t)
	from := &awsv1alpha1.ImportSource{InputFormat: awsv1alpha1.ImportFormatCSV,
		S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: "exports"}}
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.ImportFrom = from })
	_, err := f.pass(obj)
	te, ok := providers.AsTerminal(err)
	if !ok || te.Reason != ReasonUnsupportedByEndpoint || !strings.Contains(err.Error(), "cannot import from S3") {
		t.Fatalf("err = %v, want terminal %s", err, ReasonUnsupportedByEndpoint)
	}
	if f.exists(obj.Name) || f.proxy.Calls()["CreateTable"] != 0 {
		t.Error("an empty table was created instead of the import")
	}
	f.proxy.ResetCounts()
	if _, err := f.pass(newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.ImportFrom = from })); err == nil {
		t.Fatal("second import did not fail")
	}
	if got := f.proxy.Calls()["ImportTable"]; got != 0 {
		t.Errorf("ImportTable called again (%d)", got)
	}
}

// MODEL (internal/ddbgap's ImportTable): an import that FAILED before it
// made a table (its bucket is not there) stops with ImportLeftNoTable and
// AWS's reason, after one ImportTable and no CreateTable, and later passes
// send nothing more; a spec changed while an import runs (a new generation,
// hence a new ClientToken) starts no second import of the same name: the
// running one is followed until it ends, and the table it made is the
// object's.
func TestImportIsNeverRepeatedOnTheModel(t *testing.T) {
	g := NewWithT(t)
	f := newModelFixture(t, ddbgap.Options{Tagging: true, ImportDuration: 2 * time.Second,
		S3: map[string]map[string]string{"exports": {"a.json": `{"Item":{"pk":{"S":"a"}}}` + "\n"}}}, Options{})
	source := func(bucket string) func(*awsv1alpha1.DynamoDBTable) {
		return func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.ImportFrom = &awsv1alpha1.ImportSource{InputFormat: awsv1alpha1.ImportFormatDynamoDBJSON,
				S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: bucket}}
		}
	}

	missing := newTable(source("no-such-bucket"))
	var err error
	g.Eventually(func() string {
		_, err = f.pass(missing)
		te, _ := providers.AsTerminal(err)
		if te == nil {
			return ""
		}
		return te.Reason
	}, 10*time.Second, 100*time.Millisecond).Should(Equal(ReasonImportLeftNoTable))
	g.Expect(err.Error()).To(ContainSubstring("ended FAILED (S3NoSuchBucket: the model: bucket no-such-bucket does not exist)"))
	for range 3 {
		_, err = f.pass(missing)
		g.Expect(err).To(HaveOccurred())
	}
	g.Expect([]int{f.proxy.Calls()["ImportTable"], f.proxy.Calls()["CreateTable"]}).To(Equal([]int{1, 0}))

	f.proxy.ResetCounts()
	changed := newTable(source("exports"))
	_, err = f.pass(changed)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.proxy.Calls()["ImportTable"]).To(Equal(1))
	changed.Generation++ // the user edits the spec while AWS imports
	g.Eventually(func() bool {
		obs, err := f.pass(changed)
		g.Expect(err).NotTo(HaveOccurred())
		return obs.Outcome == providers.OutcomeUpToDate && obs.Available
	}, 15*time.Second, 100*time.Millisecond).Should(BeTrue(), "the import's table becomes the object's, tagged and Ready")
	g.Expect(changed.Status.Import.ImportStatus).To(Equal("COMPLETED"))
	g.Expect([]int{f.proxy.Calls()["ImportTable"], f.proxy.Calls()["CreateTable"], f.proxy.Calls()["DeleteTable"]}).To(Equal([]int{1, 0, 0}))
}

// MODEL: a manager restarted while an import runs has lost its record of
// the ImportTable answer, and the table carries no owner tag yet
// (ImportTable takes none). The new manager asks AWS again with the
// import's own ClientToken, which answers the running import and starts
// none, and so proves the table is the object's: not NotOwned, and the
// import is followed to the end with one import in all.
func TestImportSurvivesARestartOnTheModel(t *testing.T) {
	g := NewWithT(t)
	f := newModelFixture(t, ddbgap.Options{Tagging: true, ImportDuration: 3 * time.Second,
		S3: map[string]map[string]string{"exports": {"a.json": `{"Item":{"pk":{"S":"a"}}}` + "\n"}}}, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ImportFrom = &awsv1alpha1.ImportSource{InputFormat: awsv1alpha1.ImportFormatDynamoDBJSON,
			S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: "exports"}}
	})
	_, err := f.pass(obj)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(obj.Status.Import.ImportStatus).To(Equal("IN_PROGRESS"))

	// The table is visible (CREATING) when the new manager first looks.
	g.Eventually(func() error {
		_, err := f.raw.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(obj.ResolvedTableName())})
		return err
	}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
	restarted := newFixture(t, f.gap.URL(), Options{})
	g.Eventually(func() string {
		_, err := restarted.pass(obj)
		g.Expect(err).NotTo(HaveOccurred(), "the restarted manager proves the table is the object's")
		return obj.Status.TableStatus
	}, 10*time.Second, 100*time.Millisecond).ShouldNot(BeEmpty())
	g.Eventually(func() bool {
		obs, err := restarted.pass(obj)
		g.Expect(err).NotTo(HaveOccurred())
		return obs.Outcome == providers.OutcomeUpToDate && obs.Available
	}, 15*time.Second, 100*time.Millisecond).Should(BeTrue())
	g.Expect(obj.Status.Import.ImportStatus).To(Equal("COMPLETED"))
	g.Expect(f.gap.Calls("ImportTable")).To(Equal(2), "the first call, and its replay with the same token")
	g.Expect(f.gap.Imports()).To(HaveLen(1), "one import in all")
}

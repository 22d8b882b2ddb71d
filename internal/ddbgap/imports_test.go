package ddbgap_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// importDuration is one import in the model. AWS's proportions (imports.go)
// make the table unseen for its first 27%, ACTIVE for its last 5% (300 ms
// here) before COMPLETED: long enough to see both with the SDK.
const importDuration = 6 * time.Second

func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.String()
}

// Imports from S3, with AWS's own SDK: DynamoDB Local refuses ImportTable
// (UnknownOperationException), so the model answers ImportTable and
// DescribeImport. It proves the model's AWS behaviours (imports.go): the
// table unseen, then CREATING (changes refused), ACTIVE before the import
// is COMPLETED; the items and counts; the ClientToken's replays; an
// existing table refused; a bad line FAILED with the table ACTIVE and the
// good rows in it; a missing bucket FAILED and no table; a second import of
// the same name accepted and FAILED; CSV with its options, GZIP.
func TestModelImportTable(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{ImportDuration: importDuration, S3: map[string]map[string]string{
		"good": {
			"data/1.json": `{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}` + "\n" + `{"Item":{"pk":{"S":"b"}}}` + "\n",
			"data/2.json": `{"Item":{"pk":{"S":"c"}}}` + "\n",
			"other/x":     "not read: another prefix",
		},
		"bad": {"d.json": `{"Item":{"pk":{"S":"a"}}}` + "\n" + `{"Item":{"pk":{"N":"1"}}}` + "\n" + `{"Item":{"pk":{"S":"c"}}}` + "\n"},
		"csv": {"t.csv.gz": gzipped("pk;day;note\nx;1;hello\ny;2;\nz;notanumber;bad\n")},
	}})
	ctx := context.Background()
	g := NewWithT(t)

	input := func(table, bucket, prefix, token string) *dynamodb.ImportTableInput {
		return &dynamodb.ImportTableInput{ClientToken: aws.String(token), InputFormat: types.InputFormatDynamodbJson,
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String(bucket), S3KeyPrefix: aws.String(prefix)},
			TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}}}
	}
	describe := func(arn string) *types.ImportTableDescription {
		t.Helper()
		out, err := w.ddb.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.ImportTableDescription
	}
	ended := func(arn string) *types.ImportTableDescription {
		t.Helper()
		g.Eventually(func() types.ImportStatus { return describe(arn).ImportStatus }, 3*importDuration, 50*time.Millisecond).
			ShouldNot(Equal(types.ImportStatusInProgress))
		return describe(arn)
	}
	count := func(table string) int32 {
		t.Helper()
		out, err := w.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Count
	}

	// DynamoDB Local alone: no such operation, which is why the model
	// answers it.
	cfg, err := config.LoadDefaultConfig(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	bare := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) })
	_, err = bare.ImportTable(ctx, input("import-bare", "good", "data/", "t0"))
	w.expect(err, "UnknownOperationException")

	// The good import, and while it runs the same token with another
	// prefix (the same import), another table name (a conflict), and a
	// second import of the name under another token (accepted, FAILED).
	out, err := w.ddb.ImportTable(ctx, input("import-good", "good", "data/", "t1"))
	g.Expect(err).NotTo(HaveOccurred())
	good := out.ImportTableDescription
	g.Expect(good.ImportStatus).To(Equal(types.ImportStatusInProgress))
	g.Expect(aws.ToString(good.TableArn)).To(HaveSuffix(":table/import-good"))
	g.Expect(aws.ToString(good.ImportArn)).To(HavePrefix(aws.ToString(good.TableArn) + "/import/"))
	_, err = w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-good")})
	w.expect(err, "ResourceNotFoundException") // not found for a while
	again, err := w.ddb.ImportTable(ctx, input("import-good", "good", "other/", "t1"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(aws.ToString(again.ImportTableDescription.ImportArn)).To(Equal(aws.ToString(good.ImportArn)), "the same token: the same import")
	_, err = w.ddb.ImportTable(ctx, input("import-elsewhere", "good", "data/", "t1"))
	w.expect(err, "ImportConflictException")
	racer, err := w.ddb.ImportTable(ctx, input("import-good", "good", "data/", "t2"))
	g.Expect(err).NotTo(HaveOccurred(), "the name is not reserved while an import runs")

	// CREATING: changes refused; then ACTIVE while the import still runs.
	g.Eventually(func() types.TableStatus {
		d, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-good")})
		if err != nil {
			return ""
		}
		return d.Table.TableStatus
	}, importDuration, 20*time.Millisecond).Should(Equal(types.TableStatusCreating))
	_, err = w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("import-good")})
	w.expect(err, "ResourceInUseException")
	g.Eventually(func() types.TableStatus {
		d, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-good")})
		g.Expect(err).NotTo(HaveOccurred())
		return d.Table.TableStatus
	}, importDuration, 20*time.Millisecond).Should(Equal(types.TableStatusActive))
	g.Expect(describe(aws.ToString(good.ImportArn)).ImportStatus).To(Equal(types.ImportStatusInProgress), "ACTIVE before COMPLETED")

	done := ended(aws.ToString(good.ImportArn))
	g.Expect(done.ImportStatus).To(Equal(types.ImportStatusCompleted))
	g.Expect([]int64{done.ProcessedItemCount, done.ImportedItemCount, done.ErrorCount}).To(Equal([]int64{3, 3, 0}))
	g.Expect(count("import-good")).To(BeEquivalentTo(3), "only the prefix's objects")
	d, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-good")})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(aws.ToString(d.Table.TableId)).To(Equal(aws.ToString(good.TableId)), "DescribeTable reports the table id ImportTable answered")
	lost := ended(aws.ToString(racer.ImportTableDescription.ImportArn))
	g.Expect(lost.ImportStatus).To(Equal(types.ImportStatusFailed), "the second import of the name")
	g.Expect(count("import-good")).To(BeEquivalentTo(3), "the first import's table is kept")
	_, err = w.ddb.ImportTable(ctx, input("import-good", "good", "data/", "t1"))
	w.expect(err, "ResourceInUseException") // the token after COMPLETED
	_, err = w.ddb.ImportTable(ctx, input("import-good", "good", "data/", "t3"))
	w.expect(err, "ResourceInUseException") // a table that exists

	// A bad line: FAILED, the table ACTIVE with the good rows.
	out, err = w.ddb.ImportTable(ctx, input("import-bad", "bad", "", "t4"))
	g.Expect(err).NotTo(HaveOccurred())
	failed := ended(aws.ToString(out.ImportTableDescription.ImportArn))
	g.Expect(failed.ImportStatus).To(Equal(types.ImportStatusFailed))
	g.Expect(aws.ToString(failed.FailureMessage)).To(ContainSubstring("line 2"))
	g.Expect([]int64{failed.ProcessedItemCount, failed.ImportedItemCount, failed.ErrorCount}).To(Equal([]int64{3, 2, 1}))
	d, err = w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-bad")})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Table.TableStatus).To(Equal(types.TableStatusActive))
	g.Expect(count("import-bad")).To(BeEquivalentTo(2))

	// A missing bucket: FAILED, and no table.
	out, err = w.ddb.ImportTable(ctx, input("import-nobucket", "missing", "", "t5"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ended(aws.ToString(out.ImportTableDescription.ImportArn)).ImportStatus).To(Equal(types.ImportStatusFailed))
	_, err = w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("import-nobucket")})
	w.expect(err, "ResourceNotFoundException")

	// CSV, GZIP, its delimiter and header line: the N key checked, an
	// empty column left out.
	in := input("import-csv", "csv", "", "t6")
	in.InputFormat, in.InputCompressionType = types.InputFormatCsv, types.InputCompressionTypeGzip
	in.InputFormatOptions = &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String(";")}}
	in.TableCreationParameters.KeySchema = append(in.TableCreationParameters.KeySchema, types.KeySchemaElement{AttributeName: aws.String("day"), KeyType: types.KeyTypeRange})
	in.TableCreationParameters.AttributeDefinitions = append(in.TableCreationParameters.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("day"), AttributeType: types.ScalarAttributeTypeN})
	out, err = w.ddb.ImportTable(ctx, in)
	g.Expect(err).NotTo(HaveOccurred())
	csvDone := ended(aws.ToString(out.ImportTableDescription.ImportArn))
	g.Expect([]int64{csvDone.ImportedItemCount, csvDone.ErrorCount}).To(Equal([]int64{2, 1}))
	item, err := w.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("import-csv"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "y"}, "day": &types.AttributeValueMemberN{Value: "2"}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(item.Item).To(HaveLen(2), "pk and day; the empty note left out")
}

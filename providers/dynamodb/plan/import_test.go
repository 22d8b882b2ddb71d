package plan

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// TestImportTableInputCarriesWhatImportTableTakes: the table's keys,
// billing, indexes (with their warm throughput, which ImportTable takes)
// and SSE go into TableCreationParameters, the S3 source and CSV
// options are AWS's shapes, an absent prefix and owner are not sent as
// empty strings, and the ClientToken is the one given.
func TestImportTableInputCarriesWhatImportTableTakes(t *testing.T) {
	warm := int64(20000)
	spec := &awsv1alpha1.DynamoDBTableSpec{
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "N"}},
		KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		BillingMode:          "PAY_PER_REQUEST",
		GlobalSecondaryIndexes: []awsv1alpha1.GlobalSecondaryIndex{{IndexName: "byG", KeySchema: awsv1alpha1.IndexKeySchema{{AttributeName: "g", KeyType: "HASH"}},
			WarmThroughput: &awsv1alpha1.WarmThroughput{ReadUnitsPerSecond: &warm}}},
		SSESpecification:    &awsv1alpha1.SSESpecification{SSEEnabled: true, SSEType: "KMS", KMSMasterKeyID: "alias/k"},
		StreamSpecification: &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_IMAGE"},
		Tags:                map[string]string{"team": "a"},
		ImportFrom: &awsv1alpha1.ImportSource{S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: "b"}, InputFormat: "CSV",
			InputFormatOptions: &awsv1alpha1.ImportInputFormatOptions{Csv: &awsv1alpha1.ImportCsvOptions{Delimiter: ";", HeaderList: []string{"pk", "g"}}}},
	}
	in := ImportTableInput("t1", spec, "uid-1-gen-1")
	p := in.TableCreationParameters
	if aws.ToString(in.ClientToken) != "uid-1-gen-1" || aws.ToString(p.TableName) != "t1" || p.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("token %q, name %q, billing %q", aws.ToString(in.ClientToken), aws.ToString(p.TableName), p.BillingMode)
	}
	if len(p.KeySchema) != 1 || len(p.AttributeDefinitions) != 2 {
		t.Fatalf("keys %v, attributes %v", p.KeySchema, p.AttributeDefinitions)
	}
	if len(p.GlobalSecondaryIndexes) != 1 || aws.ToString(p.GlobalSecondaryIndexes[0].IndexName) != "byG" ||
		p.GlobalSecondaryIndexes[0].WarmThroughput == nil || aws.ToInt64(p.GlobalSecondaryIndexes[0].WarmThroughput.ReadUnitsPerSecond) != warm {
		t.Fatalf("indexes %+v: want byG with its warm throughput", p.GlobalSecondaryIndexes)
	}
	if p.SSESpecification == nil || aws.ToString(p.SSESpecification.KMSMasterKeyId) != "alias/k" {
		t.Fatalf("SSE %+v", p.SSESpecification)
	}
	src := in.S3BucketSource
	if aws.ToString(src.S3Bucket) != "b" || src.S3KeyPrefix != nil || src.S3BucketOwner != nil {
		t.Fatalf("source %+v: want bucket b, no prefix, no owner", src)
	}
	if in.InputFormat != types.InputFormatCsv || in.InputCompressionType != "" {
		t.Fatalf("format %q, compression %q", in.InputFormat, in.InputCompressionType)
	}
	csv := in.InputFormatOptions.Csv
	if aws.ToString(csv.Delimiter) != ";" || len(csv.HeaderList) != 2 {
		t.Fatalf("csv %+v", csv)
	}
}

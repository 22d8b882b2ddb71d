package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// ImportTableInput is the ImportTable that creates the table of spec from
// spec.importFrom. Its TableCreationParameters carry what ImportTable
// takes of the table: keys, attributes, billing, throughput, on-demand
// limits, global secondary indexes (with their warm throughput), vector
// indexes and SSE
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableCreationParameters.html).
// The rest (stream, TTL, point-in-time recovery, deletion protection,
// table class, tags, resource policy, the table's warm throughput) is no
// part of it:
// the planner sets it once the import has ended, as for any table that
// differs from its spec. token is the ClientToken: the same token while
// the import runs answers the same import instead of starting another.
func ImportTableInput(name string, spec *awsv1alpha1.DynamoDBTableSpec, token string) *dynamodb.ImportTableInput {
	from := spec.ImportFrom
	c := CreateTableInput(name, spec, nil)
	params := &types.TableCreationParameters{TableName: aws.String(name), AttributeDefinitions: c.AttributeDefinitions,
		KeySchema: c.KeySchema, BillingMode: c.BillingMode, ProvisionedThroughput: c.ProvisionedThroughput,
		OnDemandThroughput: c.OnDemandThroughput, SSESpecification: c.SSESpecification, GlobalSecondaryIndexes: c.GlobalSecondaryIndexes,
		VectorIndexes: c.VectorIndexes}
	in := &dynamodb.ImportTableInput{ClientToken: aws.String(token), InputFormat: types.InputFormat(from.InputFormat),
		InputCompressionType: types.InputCompressionType(from.InputCompressionType), TableCreationParameters: params,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String(from.S3BucketSource.S3Bucket)}}
	if p := from.S3BucketSource.S3KeyPrefix; p != "" {
		in.S3BucketSource.S3KeyPrefix = aws.String(p)
	}
	if o := from.S3BucketSource.S3BucketOwner; o != "" {
		in.S3BucketSource.S3BucketOwner = aws.String(o)
	}
	if o := from.InputFormatOptions; o != nil && o.Csv != nil {
		csv := &types.CsvOptions{HeaderList: o.Csv.HeaderList}
		if o.Csv.Delimiter != "" {
			csv.Delimiter = aws.String(o.Csv.Delimiter)
		}
		in.InputFormatOptions = &types.InputFormatOptions{Csv: csv}
	}
	return in
}

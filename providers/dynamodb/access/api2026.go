package access

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// api2026 is the part of the DynamoDB client the features of DynamoDB as
// AWS ships it in 2026 use (docs/dynamodb.md, "DynamoDB as AWS ships it in
// 2026").
type api2026 interface {
	DescribeContributorInsights(ctx context.Context, in *dynamodb.DescribeContributorInsightsInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeContributorInsightsOutput, error)
	DescribeKinesisStreamingDestination(ctx context.Context, in *dynamodb.DescribeKinesisStreamingDestinationInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeKinesisStreamingDestinationOutput, error)
	EnableKinesisStreamingDestination(ctx context.Context, in *dynamodb.EnableKinesisStreamingDestinationInput, opts ...func(*dynamodb.Options)) (*dynamodb.EnableKinesisStreamingDestinationOutput, error)
	UpdateKinesisStreamingDestination(ctx context.Context, in *dynamodb.UpdateKinesisStreamingDestinationInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateKinesisStreamingDestinationOutput, error)
	DisableKinesisStreamingDestination(ctx context.Context, in *dynamodb.DisableKinesisStreamingDestinationInput, opts ...func(*dynamodb.Options)) (*dynamodb.DisableKinesisStreamingDestinationOutput, error)
	ImportTable(ctx context.Context, in *dynamodb.ImportTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error)
	DescribeImport(ctx context.Context, in *dynamodb.DescribeImportInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error)
}

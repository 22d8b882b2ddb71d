package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The calls of issue 40's features of noCalls (provider_test.go).

func (n noCalls) DescribeContributorInsights(context.Context, *dynamodb.DescribeContributorInsightsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContributorInsightsOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) DescribeKinesisStreamingDestination(context.Context, *dynamodb.DescribeKinesisStreamingDestinationInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeKinesisStreamingDestinationOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) EnableKinesisStreamingDestination(context.Context, *dynamodb.EnableKinesisStreamingDestinationInput, ...func(*dynamodb.Options)) (*dynamodb.EnableKinesisStreamingDestinationOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) UpdateKinesisStreamingDestination(context.Context, *dynamodb.UpdateKinesisStreamingDestinationInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateKinesisStreamingDestinationOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) DisableKinesisStreamingDestination(context.Context, *dynamodb.DisableKinesisStreamingDestinationInput, ...func(*dynamodb.Options)) (*dynamodb.DisableKinesisStreamingDestinationOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) ImportTable(context.Context, *dynamodb.ImportTableInput, ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error) {
	n.fail()
	return nil, nil
}

func (n noCalls) DescribeImport(context.Context, *dynamodb.DescribeImportInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error) {
	n.fail()
	return nil, nil
}

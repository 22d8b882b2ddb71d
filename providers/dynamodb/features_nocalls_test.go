package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The newer features' calls of noCalls (provider_test.go).

func (n noCalls) ListContributorInsights(context.Context, *dynamodb.ListContributorInsightsInput, ...func(*dynamodb.Options)) (*dynamodb.ListContributorInsightsOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) UpdateContributorInsights(context.Context, *dynamodb.UpdateContributorInsightsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContributorInsightsOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) GetResourcePolicy(context.Context, *dynamodb.GetResourcePolicyInput, ...func(*dynamodb.Options)) (*dynamodb.GetResourcePolicyOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) PutResourcePolicy(context.Context, *dynamodb.PutResourcePolicyInput, ...func(*dynamodb.Options)) (*dynamodb.PutResourcePolicyOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) DeleteResourcePolicy(context.Context, *dynamodb.DeleteResourcePolicyInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteResourcePolicyOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) RestoreTableToPointInTime(context.Context, *dynamodb.RestoreTableToPointInTimeInput, ...func(*dynamodb.Options)) (*dynamodb.RestoreTableToPointInTimeOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) RestoreTableFromBackup(context.Context, *dynamodb.RestoreTableFromBackupInput, ...func(*dynamodb.Options)) (*dynamodb.RestoreTableFromBackupOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) DescribeBackup(context.Context, *dynamodb.DescribeBackupInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeBackupOutput, error) {
	n.fail()
	return nil, nil
}

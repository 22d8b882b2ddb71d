package access

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// API is the part of the DynamoDB client the adapter uses, so unit tests can
// use a small fake and integration tests a real endpoint.
type API interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
	UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
	ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	TagResource(ctx context.Context, in *dynamodb.TagResourceInput, opts ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
	UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, opts ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
	featureAPI
	api2026
}

var _ API = (*dynamodb.Client)(nil)

// featureAPI is the part of the DynamoDB client the newer features use.
type featureAPI interface {
	ListContributorInsights(ctx context.Context, in *dynamodb.ListContributorInsightsInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListContributorInsightsOutput, error)
	UpdateContributorInsights(ctx context.Context, in *dynamodb.UpdateContributorInsightsInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateContributorInsightsOutput, error)
	GetResourcePolicy(ctx context.Context, in *dynamodb.GetResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetResourcePolicyOutput, error)
	PutResourcePolicy(ctx context.Context, in *dynamodb.PutResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutResourcePolicyOutput, error)
	DeleteResourcePolicy(ctx context.Context, in *dynamodb.DeleteResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteResourcePolicyOutput, error)
	RestoreTableToPointInTime(ctx context.Context, in *dynamodb.RestoreTableToPointInTimeInput, opts ...func(*dynamodb.Options)) (*dynamodb.RestoreTableToPointInTimeOutput, error)
	RestoreTableFromBackup(ctx context.Context, in *dynamodb.RestoreTableFromBackupInput, opts ...func(*dynamodb.Options)) (*dynamodb.RestoreTableFromBackupOutput, error)
	DescribeBackup(ctx context.Context, in *dynamodb.DescribeBackupInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeBackupOutput, error)
}

// ScalingAPI is the part of the Application Auto Scaling client the
// adapter uses.
type ScalingAPI interface {
	RegisterScalableTarget(ctx context.Context, in *applicationautoscaling.RegisterScalableTargetInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.RegisterScalableTargetOutput, error)
	DescribeScalableTargets(ctx context.Context, in *applicationautoscaling.DescribeScalableTargetsInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalableTargetsOutput, error)
	DeregisterScalableTarget(ctx context.Context, in *applicationautoscaling.DeregisterScalableTargetInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DeregisterScalableTargetOutput, error)
	PutScalingPolicy(ctx context.Context, in *applicationautoscaling.PutScalingPolicyInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.PutScalingPolicyOutput, error)
	DescribeScalingPolicies(ctx context.Context, in *applicationautoscaling.DescribeScalingPoliciesInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalingPoliciesOutput, error)
}

var _ ScalingAPI = (*applicationautoscaling.Client)(nil)

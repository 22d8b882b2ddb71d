package plan

import (
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StepKind names what one update step changes. Each feature's file
// declares the kinds of its steps; where they go in a plan is the order of
// the passes (passes.go).
type StepKind string

// indexKindPrefix makes an index's kind of a step of a setting the table
// and its indexes carry alike: IndexWarmThroughput changes one index's
// warm throughput, WarmThroughput the table's.
const indexKindPrefix = "Index"

// ofIndex is the kind of the step that changes what k changes, on one
// index.
func (k StepKind) ofIndex() StepKind { return indexKindPrefix + k }

// Step is one AWS call that moves the table towards the spec. Exactly one
// of the inputs is set (Tags lacks the ARN, filled in when it is sent).
type Step struct {
	Kind        StepKind
	Description string
	Table       *dynamodb.UpdateTableInput
	TTL         *dynamodb.UpdateTimeToLiveInput
	Backups     *dynamodb.UpdateContinuousBackupsInput
	Tags        []types.Tag
	UntagKeys   []string
	// Inputs of the newer features' steps. PutPolicy and DeletePolicy lack
	// the ARN, filled in when sent.
	Insights      *dynamodb.UpdateContributorInsightsInput
	PutPolicy     *dynamodb.PutResourcePolicyInput
	DeletePolicy  *dynamodb.DeleteResourcePolicyInput
	Register      *applicationautoscaling.RegisterScalableTargetInput
	ScalingPolicy *applicationautoscaling.PutScalingPolicyInput
	Deregister    *applicationautoscaling.DeregisterScalableTargetInput
	// Inputs of the Kinesis streaming destination's steps (kinesis.go).
	KinesisEnable  *dynamodb.EnableKinesisStreamingDestinationInput
	KinesisUpdate  *dynamodb.UpdateKinesisStreamingDestinationInput
	KinesisDisable *dynamodb.DisableKinesisStreamingDestinationInput
	// Region is where the call goes when it is not the table's own Region:
	// a replica's disassociation goes to the replica's (disassociation.go).
	Region string
}

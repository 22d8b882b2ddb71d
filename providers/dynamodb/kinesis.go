package dynamodb

import (
	"cmp"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// The Kinesis streaming destination (plan/kinesis.go) as the adapter keeps
// it: its read, its record in the status, and ENABLE_FAILED. AWS checks the
// stream only after it accepted the ENABLE, and an ENABLE_FAILED
// destination stays so (ACK dynamodb-controller
// docs/api-quirks/table-policy-kinesis-autoscaling.md); a stream that is
// missing, or in another Region or account, fails again the same way. So,
// as for contributor insights (insights.go), Tether sends one ENABLE per
// spec generation for a destination that failed; once that one has failed
// too, the table is not Ready, with AWS's reason, and nothing more is sent
// until the user changes the object.

// reasonKinesisFailed: AWS reports the Kinesis streaming destination
// ENABLE_FAILED after Tether enabled it for this generation.
const reasonKinesisFailed = "KinesisStreamingFailed"

// kinesisFailedRecheck is how often a table whose destination failed is
// read again: as for failed contributor insights, only a change in AWS or
// to the object ends it, and the object's change wakes it at once.
const kinesisFailedRecheck = insightsFailedRecheck

// readKinesis reads the table's destinations
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html).
func readKinesis(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, mem *memory) error {
	out, err := ep.API.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{
		TableName: aws.String(obj.ResolvedTableName())})
	if err != nil {
		return err
	}
	mem.reads.Kinesis = plan.ObservedKinesis(out.KinesisDataStreamDestinations)
	return nil
}

// usesKinesis says whether the table's destinations are read: the spec
// names one, or Tether enabled one it may have to disable.
func usesKinesis(obj *awsv1alpha1.DynamoDBTable) bool {
	return plan.Uses(&obj.Spec, plan.FeatureKinesis) || obj.Status.ManagedKinesisStreamArn != ""
}

// recordKinesis shows in the status the destination the spec names (or,
// while it names none, the one Tether enabled) as AWS reports it, and
// forgets the one Tether enabled once it is off (DISABLED, ENABLE_FAILED
// or no longer listed) and the spec does not name it.
func recordKinesis(obj *awsv1alpha1.DynamoDBTable, have plan.Kinesis) {
	s, named := &obj.Status, ""
	if !usesKinesis(obj) {
		s.KinesisStreamingDestination = nil
		return
	}
	if have == nil {
		return
	}
	if k := obj.Spec.KinesisStreamingDestination; k != nil {
		named = k.StreamArn
	}
	shown := cmp.Or(named, s.ManagedKinesisStreamArn)
	s.KinesisStreamingDestination = nil
	if d, ok := have[shown]; ok && shown != "" {
		s.KinesisStreamingDestination = &awsv1alpha1.KinesisStreamingDestinationStatus{StreamArn: shown, DestinationStatus: d.Status,
			DestinationStatusDescription: d.Description, ApproximateCreationDateTimePrecision: d.Precision}
	}
	if m := s.ManagedKinesisStreamArn; m != "" && m != named {
		if d, ok := have[m]; !ok || d.Status == string(types.DestinationStatusDisabled) || d.Failed() {
			s.ManagedKinesisStreamArn = ""
		}
	}
	if !usesKinesis(obj) {
		s.KinesisStreamingDestination = nil // the one Tether enabled is off and forgotten
	}
}

// noteKinesisSent remembers an ENABLE AWS accepted, for the object's
// current spec, and the stream as the one Tether enabled.
func noteKinesisSent(mem *memory, obj *awsv1alpha1.DynamoDBTable, step plan.Step) {
	if step.KinesisEnable == nil {
		return
	}
	arn := aws.ToString(step.KinesisEnable.StreamArn)
	mem.kinesisEnabled[arn] = objectFingerprint(obj)
	obj.Status.ManagedKinesisStreamArn = arn
}

// holdFailedKinesis hides the destinations from the planner when the one
// the spec names is ENABLE_FAILED after an ENABLE Tether sent for this
// spec, and says so with AWS's reason; "" otherwise.
func holdFailedKinesis(mem *memory, obj *awsv1alpha1.DynamoDBTable, have *plan.Table) string {
	k := obj.Spec.KinesisStreamingDestination
	if k == nil || have.Kinesis == nil {
		return ""
	}
	d, ok := have.Kinesis[k.StreamArn]
	if !ok || !d.Failed() || mem.kinesisEnabled[k.StreamArn] != objectFingerprint(obj) {
		return ""
	}
	have.Kinesis = nil
	why := ""
	if d.Description != "" {
		why = " (" + d.Description + ")"
	}
	return fmt.Sprintf("the Kinesis streaming destination %s is ENABLE_FAILED%s after Tether enabled it, and AWS does not retry: "+
		"check that the stream exists in the table's Region and account and that DynamoDB may write to it (its policy, its KMS key), "+
		"then change the object for Tether to enable it again", k.StreamArn, why)
}

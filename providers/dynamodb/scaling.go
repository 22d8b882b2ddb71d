package dynamodb

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Autoscaling's writes through Application Auto Scaling; its read is in
// reads.go, what is desired and planned the plan's (plan/autoscaling.go).

// sendScaling makes an Application Auto Scaling call. What it changed is
// taken as read: a new target may take a moment to show in
// DescribeScalableTargets ("there might be a brief delay until the operation
// achieves eventual consistency", API RegisterScalableTarget), and
// registering again meanwhile would look like a stalled step.
func (p *Provider) sendScaling(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step) error {
	if ep.Scaling == nil {
		return access.ErrNoEndpoint
	}
	table := obj.ResolvedTableName()
	var err error
	var resource string
	var dimension aastypes.ScalableDimension
	switch {
	case step.Register != nil:
		_, err = ep.Scaling.RegisterScalableTarget(ctx, step.Register)
		resource, dimension = aws.ToString(step.Register.ResourceId), step.Register.ScalableDimension
	case step.ScalingPolicy != nil:
		_, err = ep.Scaling.PutScalingPolicy(ctx, step.ScalingPolicy)
		resource, dimension = aws.ToString(step.ScalingPolicy.ResourceId), step.ScalingPolicy.ScalableDimension
	default:
		_, err = ep.Scaling.DeregisterScalableTarget(ctx, step.Deregister)
		resource, dimension = aws.ToString(step.Deregister.ResourceId), step.Deregister.ScalableDimension
	}
	if err != nil {
		return err
	}
	mem := p.memoryOf(obj)
	k, _ := plan.ScalingKeyOf(table, resource, dimension)
	cached := maps.Clone(mem.reads.Scaling)
	if cached == nil {
		cached = map[string]*plan.Scaling{}
	}
	s := plan.Scaling{}
	if c := cached[k]; c != nil {
		s = *c
	}
	switch {
	case step.Register != nil:
		s.Registered, s.Min, s.Max = true, aws.ToInt32(step.Register.MinCapacity), aws.ToInt32(step.Register.MaxCapacity)
		p.named.note(ep.TableKey(table), namedScaling, k, obj.UID)
	case step.ScalingPolicy != nil:
		c := step.ScalingPolicy.TargetTrackingScalingPolicyConfiguration
		s.HasPolicy, s.Target, s.ScaleIn, s.ScaleOut = true, int32(aws.ToFloat64(c.TargetValue)), c.ScaleInCooldown, c.ScaleOutCooldown
	default:
		delete(cached, k)
		mem.reads.Scaling = cached
		obj.Status.ManagedScalableTargets = slices.DeleteFunc(slices.Clone(obj.Status.ManagedScalableTargets), func(x string) bool { return x == k })
		return nil
	}
	cached[k] = &s
	mem.reads.Scaling = cached
	if !slices.Contains(obj.Status.ManagedScalableTargets, k) {
		obj.Status.ManagedScalableTargets = append(slices.Clone(obj.Status.ManagedScalableTargets), k)
		slices.Sort(obj.Status.ManagedScalableTargets)
	}
	return nil
}

// deregisterScalingOf deregisters, before the table is deleted, the
// scalable targets Tether registered for it (status.managedScalableTargets),
// which deletes their policies too (API DeregisterScalableTarget). AWS
// keeps both after a table is deleted ("you do not automatically remove any
// associated scalable targets, scaling policies, or CloudWatch alarms", API
// ReplicationGroupUpdate), and a later table of the same name would be
// scaled by a policy nobody manages. A target already gone is done.
func deregisterScalingOf(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if ep.Scaling == nil {
		return nil
	}
	table := obj.ResolvedTableName()
	for _, k := range slices.Clone(obj.Status.ManagedScalableTargets) {
		resource, dimension := plan.ScalingTarget(table, k)
		_, err := ep.Scaling.DeregisterScalableTarget(ctx, &applicationautoscaling.DeregisterScalableTargetInput{
			ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceId: aws.String(resource), ScalableDimension: dimension})
		if err != nil && access.ErrorCode(err) != "ObjectNotFoundException" {
			return access.Classify(err)
		}
		obj.Status.ManagedScalableTargets = slices.DeleteFunc(obj.Status.ManagedScalableTargets, func(x string) bool { return x == k })
	}
	return nil
}

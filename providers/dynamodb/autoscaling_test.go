package dynamodb

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

func scalingPolicy(minC, maxC, target int32) *awsv1alpha1.ScalingPolicy {
	return &awsv1alpha1.ScalingPolicy{MinCapacity: minC, MaxCapacity: maxC, TargetUtilization: target}
}

// targets lists what Application Auto Scaling has for a table: key -> min/max.
func (f *modelFixture) targets(table string) map[string][2]int32 {
	f.t.Helper()
	out, err := f.scale.DescribeScalableTargets(context.Background(), &applicationautoscaling.DescribeScalableTargetsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb})
	if err != nil {
		f.t.Fatal(err)
	}
	got := map[string][2]int32{}
	for _, tg := range out.ScalableTargets {
		if k, ok := plan.ScalingKeyOf(table, aws.ToString(tg.ResourceId), tg.ScalableDimension); ok {
			got[k] = [2]int32{aws.ToInt32(tg.MinCapacity), aws.ToInt32(tg.MaxCapacity)}
		}
	}
	return got
}

func (f *modelFixture) setCapacity(table, index string, read, write int64) {
	f.t.Helper()
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(read), WriteCapacityUnits: aws.Int64(write)}
	in := &dynamodb.UpdateTableInput{TableName: aws.String(table), ProvisionedThroughput: pt}
	if index != "" {
		in = &dynamodb.UpdateTableInput{TableName: aws.String(table), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(index), ProvisionedThroughput: pt}}}}
	}
	if _, err := f.raw.UpdateTable(context.Background(), in); err != nil {
		f.t.Fatal(err)
	}
}

// MODEL (Application Auto Scaling, served by internal/ddbgap, which moves a
// registered capacity into [min, max] as RegisterScalableTarget documents;
// the table itself is DynamoDB Local's): capacities under autoscaling get a
// scalable target and a target-tracking policy, and from then on Tether
// never corrects them, whoever moves them; the capacities not under
// autoscaling are still corrected; changed bounds are one call; autoscaling
// dropped from the spec is deregistered and the capacity is the spec's again.
func TestAutoScalingOwnsItsCapacityOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", capacity(5, 5)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: scalingPolicy(10, 100, 70), Write: scalingPolicy(1, 50, 50)}
		o.Spec.GlobalSecondaryIndexes[0].AutoScaling = &awsv1alpha1.AutoScaling{Read: scalingPolicy(2, 20, 60)}
	})
	f.converge(obj)
	want := map[string][2]int32{"table/read": {10, 100}, "table/write": {1, 50}, "index/byCustomer/read": {2, 20}}
	if got := f.targets(obj.Name); !equalTargets(got, want) {
		t.Fatalf("scalable targets = %v, want %v", got, want)
	}
	if want := []string{"index/byCustomer/read", "table/read", "table/write"}; !slices.Equal(obj.Status.ManagedScalableTargets, want) {
		t.Errorf("managed targets = %v", obj.Status.ManagedScalableTargets)
	}
	calls := f.proxy.Calls()
	if calls["RegisterScalableTarget"] != 3 || calls["PutScalingPolicy"] != 3 {
		t.Errorf("calls = %v, want 3 targets and 3 policies", calls)
	}
	// Registering moved the table's reads from 5 to the minimum 10: that is
	// autoscaling's capacity now, not drift.
	if d := f.describe(obj.Name); aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 10 {
		t.Fatalf("read capacity = %d, want 10 (autoscaling's minimum)", aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits))
	}
	f.steady(obj, 3)

	// Autoscaling scales reads up: not corrected. Someone changes the
	// index's writes, which autoscaling does not own: corrected.
	f.setCapacity(obj.Name, "", 40, 30)
	f.setCapacity(obj.Name, "byCustomer", 12, 9)
	f.proxy.ResetCounts()
	f.converge(obj)
	d := f.describe(obj.Name)
	if r, w := aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits); r != 40 || w != 30 {
		t.Errorf("table capacity = %d/%d, want autoscaling's 40/30 untouched", r, w)
	}
	if g := d.GlobalSecondaryIndexes[0].ProvisionedThroughput; aws.ToInt64(g.ReadCapacityUnits) != 12 || aws.ToInt64(g.WriteCapacityUnits) != 5 {
		t.Errorf("index capacity = %d/%d, want reads 12 (autoscaling's), writes back to 5", aws.ToInt64(g.ReadCapacityUnits), aws.ToInt64(g.WriteCapacityUnits))
	}
	if got := f.proxy.Calls()["UpdateTable"]; got != 1 {
		t.Errorf("UpdateTable calls = %d, want 1 (the index's writes)", got)
	}
	f.steady(obj, 2)

	// New bounds, new target: one call each.
	obj.Spec.AutoScaling.Read = scalingPolicy(10, 200, 80)
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	if calls := f.proxy.Calls(); calls["RegisterScalableTarget"] != 1 || calls["PutScalingPolicy"] != 1 {
		t.Errorf("calls = %v, want one RegisterScalableTarget and one PutScalingPolicy", calls)
	}

	// Autoscaling of the table's reads dropped: deregistered, and the
	// reads are the spec's 5 again.
	obj.Spec.AutoScaling.Read = nil
	obj.Generation++
	f.converge(obj)
	if got := f.targets(obj.Name); got["table/read"] != ([2]int32{}) {
		t.Errorf("table reads still registered: %v", got)
	}
	if d := f.describe(obj.Name); aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 30 {
		t.Errorf("table capacity = %+v, want reads 5 (spec), writes 30 (autoscaling's)", d.ProvisionedThroughput)
	}
	if slices.Contains(obj.Status.ManagedScalableTargets, "table/read") {
		t.Errorf("managed targets = %v", obj.Status.ManagedScalableTargets)
	}

	// To PAY_PER_REQUEST: the remaining targets go first (the model, like
	// AWS, refuses to register a capacity of an on-demand table).
	obj.Spec.BillingMode = awsv1alpha1.BillingModePayPerRequest
	obj.Spec.ProvisionedThroughput, obj.Spec.AutoScaling = nil, nil
	obj.Spec.GlobalSecondaryIndexes[0].ProvisionedThroughput, obj.Spec.GlobalSecondaryIndexes[0].AutoScaling = nil, nil
	obj.Generation++
	f.converge(obj)
	if got := f.targets(obj.Name); len(got) != 0 {
		t.Errorf("targets left after the switch: %v", got)
	}
	if len(obj.Status.ManagedScalableTargets) != 0 {
		t.Errorf("managed targets = %v", obj.Status.ManagedScalableTargets)
	}
	f.steady(obj, 2)
}

func equalTargets(a, b map[string][2]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// REAL PEER (DynamoDB Local; no Application Auto Scaling beside it): the
// feature is listed as unsupported without a single call, and the capacity
// is managed as before, to provisionedThroughput.
func TestAutoScalingOnDynamoDBLocal(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: scalingPolicy(10, 100, 70)}
	})
	f.converge(obj)
	if want := []string{plan.FeatureAutoScaling}; !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	if _, err := f.raw.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(obj.Name),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(5)}}); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	if d := f.describe(obj.Name); aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 5 {
		t.Errorf("read capacity = %d, want the spec's 5", aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits))
	}
	f.steady(obj, 2)
}

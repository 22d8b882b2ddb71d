package dynamodb

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

func caps(read, write *int64) *awsv1alpha1.OnDemandThroughput {
	return &awsv1alpha1.OnDemandThroughput{MaxReadRequestUnits: read, MaxWriteRequestUnits: write}
}

// steady runs n passes and fails on any write to AWS.
func (f *fixture) steady(obj *awsv1alpha1.DynamoDBTable, n int) {
	f.t.Helper()
	f.proxy.ResetCounts()
	for range n {
		if obs, err := f.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpToDate || !obs.Available {
			f.t.Fatalf("steady pass: %+v %v (pending %v)", obs, err, obj.Status.PendingPlan)
		}
	}
	for op, n := range f.proxy.Calls() {
		if !slices.Contains([]string{"DescribeTable", "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource",
			"ListContributorInsights", "GetResourcePolicy", "DescribeScalableTargets", "DescribeScalingPolicies"}, op) {
			f.t.Errorf("steady state sent %d %s", n, op)
		}
	}
}

// MODEL (internal/ddbgap; DynamoDB Local does not keep on-demand limits):
// limits on the table and on an index are set at create, changed one call
// each, removed with -1 (compared as "no limit", like an absent one), and
// sent again after a switch to PROVISIONED and back, which drops them.
func TestOnDemandLimitsOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.OnDemandThroughput = caps(aws.Int64(100), aws.Int64(-1))
		o.Spec.GlobalSecondaryIndexes[0].OnDemandThroughput = caps(aws.Int64(10), nil)
	})
	f.converge(obj)
	d := f.describe(obj.Name)
	if d.OnDemandThroughput == nil || aws.ToInt64(d.OnDemandThroughput.MaxReadRequestUnits) != 100 || d.OnDemandThroughput.MaxWriteRequestUnits != nil {
		t.Fatalf("table limits = %+v", d.OnDemandThroughput)
	}
	if g := d.GlobalSecondaryIndexes[0].OnDemandThroughput; g == nil || aws.ToInt64(g.MaxReadRequestUnits) != 10 {
		t.Fatalf("index limits = %+v", g)
	}
	if calls := f.proxy.Calls(); calls["UpdateTable"] != 0 {
		t.Errorf("CreateTable should have carried the limits; UpdateTable calls = %d", calls["UpdateTable"])
	}
	// -1 on the write side and AWS's absent write limit are the same.
	f.steady(obj, 3)

	obj.Spec.OnDemandThroughput = caps(aws.Int64(-1), aws.Int64(50))
	obj.Spec.GlobalSecondaryIndexes[0].OnDemandThroughput = caps(aws.Int64(20), nil)
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateTable"]; got != 2 {
		t.Errorf("UpdateTable calls = %d, want one for the table and one for the index", got)
	}
	d = f.describe(obj.Name)
	if d.OnDemandThroughput.MaxReadRequestUnits != nil || aws.ToInt64(d.OnDemandThroughput.MaxWriteRequestUnits) != 50 ||
		aws.ToInt64(d.GlobalSecondaryIndexes[0].OnDemandThroughput.MaxReadRequestUnits) != 20 {
		t.Fatalf("limits after the change = %+v / %+v", d.OnDemandThroughput, d.GlobalSecondaryIndexes[0].OnDemandThroughput)
	}

	// To PROVISIONED (the model drops the limits, as AWS does) and back.
	spec := obj.Spec.DeepCopy()
	obj.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
	obj.Spec.ProvisionedThroughput = capacity(2, 2)
	obj.Spec.GlobalSecondaryIndexes[0].ProvisionedThroughput = capacity(1, 1)
	obj.Spec.OnDemandThroughput, obj.Spec.GlobalSecondaryIndexes[0].OnDemandThroughput = nil, nil
	obj.Generation++
	f.converge(obj)
	if d := f.describe(obj.Name); d.OnDemandThroughput != nil {
		t.Fatalf("limits survived the switch to PROVISIONED: %+v", d.OnDemandThroughput)
	}
	obj.Spec = *spec
	obj.Generation++
	f.converge(obj)
	d = f.describe(obj.Name)
	if d.OnDemandThroughput == nil || aws.ToInt64(d.OnDemandThroughput.MaxWriteRequestUnits) != 50 ||
		aws.ToInt64(d.GlobalSecondaryIndexes[0].OnDemandThroughput.MaxReadRequestUnits) != 20 {
		t.Fatalf("limits not sent again after switching back: %+v / %+v", d.OnDemandThroughput, d.GlobalSecondaryIndexes[0].OnDemandThroughput)
	}
	f.steady(obj, 2)
}

// REAL PEER (DynamoDB Local ignores on-demand limits and warm throughput,
// and answers their update "Nothing to update"): the table is managed all
// the same, the status lists both features, and they are not sent again.
func TestOnDemandAndWarmThroughputOnDynamoDBLocal(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.OnDemandThroughput = caps(aws.Int64(100), nil)
		o.Spec.GlobalSecondaryIndexes[0].OnDemandThroughput = caps(aws.Int64(10), nil)
		o.Spec.WarmThroughput = &awsv1alpha1.WarmThroughput{ReadUnitsPerSecond: aws.Int64(15000)}
		o.Spec.GlobalSecondaryIndexes[0].WarmThroughput = &awsv1alpha1.WarmThroughput{WriteUnitsPerSecond: aws.Int64(5000)}
	})
	f.converge(obj)
	if want := []string{plan.FeatureOnDemand, plan.FeatureWarm}; !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	f.steady(obj, 3)
	if f.events.count("FeatureUnsupported") != 2 {
		t.Errorf("FeatureUnsupported events = %d, want one per feature", f.events.count("FeatureUnsupported"))
	}
}

// MODEL (DynamoDB Local reports no warm throughput): the spec is a floor.
// A table created with a floor gets it at create; a floor raised later is
// one call; a table whose warm throughput DynamoDB raised above the floor by
// itself, or a floor below what the table already has, costs no call at
// all: the loop the Upbound provider fell into (101,707 updates in 23 hours)
// cannot happen.
func TestWarmThroughputIsAFloorOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.WarmThroughput = &awsv1alpha1.WarmThroughput{ReadUnitsPerSecond: aws.Int64(15000)}
		// Below the 4,000 writes/s a new on-demand index starts with.
		o.Spec.GlobalSecondaryIndexes[0].WarmThroughput = &awsv1alpha1.WarmThroughput{WriteUnitsPerSecond: aws.Int64(1000)}
	})
	f.converge(obj)
	if w := f.describe(obj.Name).WarmThroughput; aws.ToInt64(w.ReadUnitsPerSecond) != 15000 || aws.ToInt64(w.WriteUnitsPerSecond) != 4000 {
		t.Fatalf("warm throughput = %+v", w)
	}
	if got := f.proxy.Calls()["UpdateTable"]; got != 0 {
		t.Errorf("UpdateTable calls = %d; CreateTable carries the floor, and 1000 is below the index's default", got)
	}
	f.steady(obj, 2)

	// DynamoDB raises the table's and the index's warm throughput by itself.
	f.gap.SetWarmThroughput(obj.Name, "", 40000, 9000)
	f.gap.SetWarmThroughput(obj.Name, "byCustomer", 30000, 12000)
	f.steady(obj, 3)

	// A floor above what the index has is raised, once; one above what the
	// table has, likewise.
	obj.Spec.GlobalSecondaryIndexes[0].WarmThroughput = &awsv1alpha1.WarmThroughput{WriteUnitsPerSecond: aws.Int64(20000)}
	obj.Spec.WarmThroughput = &awsv1alpha1.WarmThroughput{ReadUnitsPerSecond: aws.Int64(20000), WriteUnitsPerSecond: aws.Int64(10000)}
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateTable"]; got != 2 {
		t.Errorf("UpdateTable calls = %d, want 2 (the table's writes, the index's writes)", got)
	}
	d := f.describe(obj.Name)
	if w := d.WarmThroughput; aws.ToInt64(w.ReadUnitsPerSecond) != 40000 || aws.ToInt64(w.WriteUnitsPerSecond) != 10000 {
		t.Errorf("table warm throughput = %+v: reads must stay at DynamoDB's 40000, writes raised to 10000", w)
	}
	if w := d.GlobalSecondaryIndexes[0].WarmThroughput; aws.ToInt64(w.WriteUnitsPerSecond) != 20000 {
		t.Errorf("index warm throughput = %+v", w)
	}
	f.steady(obj, 2)
}

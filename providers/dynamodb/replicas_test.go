package dynamodb

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

func replicaStatuses(obj *awsv1alpha1.DynamoDBTable) map[string]string {
	out := map[string]string{}
	for _, r := range obj.Status.Replicas {
		out[r.RegionName] = r.ReplicaStatus
	}
	return out
}

func withStream(view string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: view}
	}
}

// deleteAll runs Delete until the table is gone, for transitions that take
// longer than deleteFully waits.
func (f *fixture) deleteAll(obj *awsv1alpha1.DynamoDBTable) []string {
	f.t.Helper()
	waits, err := f.deleteUntilStopped(obj)
	if err != nil {
		f.t.Fatalf("delete: %v", err)
	}
	return waits
}

// deleteUntilStopped runs Delete while it waits (Pending); it returns the
// waits and what ended them: nil once the table is gone, else the error.
func (f *fixture) deleteUntilStopped(obj *awsv1alpha1.DynamoDBTable) ([]string, error) {
	f.t.Helper()
	var waits []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		err := f.delete(obj)
		p, waiting := providers.AsPending(err)
		if !waiting {
			return waits, err
		}
		waits = append(waits, p.Message)
		time.Sleep(50 * time.Millisecond)
	}
	f.t.Fatal("delete did not finish")
	return nil, nil
}

// MODEL (DynamoDB Local has no global tables; internal/ddbgap refuses a
// request with more than one replica action, any UpdateTable while a
// replica is CREATING/UPDATING/DELETING, a replica without the
// NEW_AND_OLD_IMAGES stream, and a DeleteTable while replicas exist): the
// stream comes first, then the replicas one per call; a replica deleted
// behind Tether's back is put back; an override change is one update; a
// Region dropped from the spec is removed; a replica someone else added is
// left alone; deleting the object removes the replicas one by one, then
// the table.
func TestGlobalTableReplicasOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", nil))
	f.converge(obj)

	withStream("NEW_AND_OLD_IMAGES")(obj)
	obj.Spec.Replicas = []awsv1alpha1.Replica{
		{RegionName: "eu-west-1", OnDemandThroughputOverride: &awsv1alpha1.ReadRequestOverride{MaxReadRequestUnits: 50},
			GlobalSecondaryIndexes: []awsv1alpha1.ReplicaIndex{{IndexName: "byCustomer", OnDemandThroughputOverride: &awsv1alpha1.ReadRequestOverride{MaxReadRequestUnits: 5}}}},
		{RegionName: "ap-southeast-2", TableClassOverride: "STANDARD_INFREQUENT_ACCESS"},
	}
	obj.Generation++
	if _, err := f.observe(obj); err != nil {
		t.Fatal(err)
	}
	if want := []string{"enable stream NEW_AND_OLD_IMAGES", "add replica ap-southeast-2", "add replica eu-west-1"}; !slices.Equal(obj.Status.PendingPlan, want) {
		t.Errorf("pending plan = %q, want %q", obj.Status.PendingPlan, want)
	}
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateTable"]; got != 3 {
		t.Errorf("UpdateTable calls = %d, want 3 (stream, then one per replica)", got)
	}
	if got := replicaStatuses(obj); got["eu-west-1"] != "ACTIVE" || got["ap-southeast-2"] != "ACTIVE" {
		t.Fatalf("replicas = %v", got)
	}
	if want := []string{"ap-southeast-2", "eu-west-1"}; !slices.Equal(obj.Status.ManagedReplicaRegions, want) {
		t.Errorf("managed replicas = %v", obj.Status.ManagedReplicaRegions)
	}
	d := f.describe(obj.Name)
	if aws.ToString(d.GlobalTableVersion) != "2019.11.21" {
		t.Errorf("global table version = %q", aws.ToString(d.GlobalTableVersion))
	}
	f.steady(obj, 2)

	// Deleted behind Tether's back: put back, like an index.
	f.gap.DropReplica(obj.Name, "eu-west-1")
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateTable"]; got != 1 || replicaStatuses(obj)["eu-west-1"] != "ACTIVE" {
		t.Errorf("UpdateTable calls = %d, replicas %v: want the replica re-created in one call", got, replicaStatuses(obj))
	}

	// Someone else adds a replica: left alone.
	if _, err := f.raw.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(obj.Name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}}); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	f.steady(obj, 2)

	// A new override, and a Region dropped.
	obj.Spec.Replicas = obj.Spec.Replicas[:1]
	obj.Spec.Replicas[0].OnDemandThroughputOverride.MaxReadRequestUnits = 80
	obj.Generation++
	if _, err := f.observe(obj); err != nil {
		t.Fatal(err)
	}
	if want := []string{"remove replica ap-southeast-2", "change replica eu-west-1 (read request limit)"}; !slices.Equal(obj.Status.PendingPlan, want) {
		t.Errorf("pending plan = %q, want %q", obj.Status.PendingPlan, want)
	}
	f.converge(obj)
	got := replicaStatuses(obj)
	if _, ok := got["ap-southeast-2"]; ok || got["us-west-2"] != "ACTIVE" {
		t.Errorf("replicas = %v, want ap-southeast-2 gone and us-west-2 (not Tether's) kept", got)
	}
	for _, r := range f.describe(obj.Name).Replicas {
		if aws.ToString(r.RegionName) == "eu-west-1" && aws.ToInt64(r.OnDemandThroughputOverride.MaxReadRequestUnits) != 80 {
			t.Errorf("eu-west-1 override = %d", aws.ToInt64(r.OnDemandThroughputOverride.MaxReadRequestUnits))
		}
	}

	if want := []string{"eu-west-1"}; !slices.Equal(obj.Status.AddedReplicaRegions, want) {
		t.Errorf("replicas Tether added = %v, want %v", obj.Status.AddedReplicaRegions, want)
	}

	// Deleting the object: the replica Tether added goes; us-west-2 is not
	// Tether's to remove, so the table stays, and the delete says why.
	waits, err := f.deleteUntilStopped(obj)
	if !isRetryReason(err, reasonForeignReplicas) || !strings.Contains(err.Error(), "us-west-2") {
		t.Fatalf("delete: %v, want %s naming us-west-2 (waits %q)", err, reasonForeignReplicas, waits)
	}
	if got := replicasOf(f.describe(obj.Name)); !slices.Equal(got, []string{"us-west-2"}) {
		t.Errorf("replicas left = %v, want only us-west-2", got)
	}
	// Once its owner removed it, the delete goes on.
	if _, err := f.raw.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(obj.Name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}}); err != nil {
		t.Fatal(err)
	}
	f.deleteAll(obj)
	if f.exists(obj.Name) {
		t.Fatal("table still there")
	}
}

func replicasOf(d *types.TableDescription) []string {
	var out []string
	for _, r := range d.Replicas {
		out = append(out, aws.ToString(r.RegionName))
	}
	slices.Sort(out)
	return out
}

// MODEL: a PROVISIONED global table needs write autoscaling on the table and
// every index before its first replica (the model refuses the replica
// otherwise, as AWS does); Tether registers it first.
func TestProvisionedGlobalTableAutoscalesFirstOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", capacity(5, 5)), withStream("NEW_AND_OLD_IMAGES"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Write: scalingPolicy(5, 50, 70)}
		o.Spec.GlobalSecondaryIndexes[0].AutoScaling = &awsv1alpha1.AutoScaling{Write: scalingPolicy(5, 50, 70)}
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "eu-west-1", ProvisionedThroughputOverride: &awsv1alpha1.ReadCapacityOverride{ReadCapacityUnits: 10}}}
	})
	f.converge(obj)
	if got := replicaStatuses(obj)["eu-west-1"]; got != "ACTIVE" {
		t.Fatalf("replica = %q", got)
	}
	f.steady(obj, 2)
}

// MODEL: a replica AWS reports as not working (here CREATION_FAILED) is
// nothing Tether can fix by sending: the table is not Ready, says which
// replica and why, and nothing is sent.
func TestReplicaNotWorkingOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withStream("NEW_AND_OLD_IMAGES"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "eu-west-1"}}
	})
	f.converge(obj)
	f.gap.SetReplicaStatus(obj.Name, "eu-west-1", "CREATION_FAILED", "KMS key not accessible")
	f.proxy.ResetCounts()
	obs, err := f.pass(obj)
	if err != nil || obs.Available || obs.Reason != reasonReplicaNotWorking || obs.Message == "" {
		t.Fatalf("observation = %+v, %v", obs, err)
	}
	t.Logf("Ready message: %s", obs.Message)
	if got := f.proxy.Calls()["UpdateTable"]; got != 0 {
		t.Errorf("UpdateTable calls = %d", got)
	}
}

// REAL PEER (DynamoDB Local answers a replica update "Nothing to update"):
// the table is managed, replicas are listed as unsupported and not sent again.
func TestReplicasOnDynamoDBLocal(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withStream("NEW_AND_OLD_IMAGES"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "eu-west-1"}}
	})
	f.converge(obj)
	if want := []string{plan.FeatureReplicas}; !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	f.steady(obj, 3)
	f.deleteFully(obj)
}

// Issue 23 item 9, MODEL: a tenant adopts a table that is one Region of
// someone else's global table (here us-east-1, whose replica eu-west-1
// stands for the owner's primary) and adds a replica of its own. Deleting
// the object, with the deletion of adopted tables opted into, removes that
// replica and no other: the owner's Region stays, and so does the table,
// with a condition saying why.
func TestDeletingAnAdoptedGlobalTableRemovesOnlyTethersReplicasOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withStream("NEW_AND_OLD_IMAGES"))
	ctx := context.Background()
	if _, err := f.raw.CreateTable(ctx, plan.CreateTableInput(obj.Name, &obj.Spec, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(obj.Name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	obj.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true", awsv1alpha1.AnnotationDeleteAdopted: "true"}
	obj.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "ap-southeast-2"}}
	f.converge(obj)
	if !obj.Status.Adopted || !slices.Equal(obj.Status.AddedReplicaRegions, []string{"ap-southeast-2"}) {
		t.Fatalf("adopted %v, replicas Tether added %v", obj.Status.Adopted, obj.Status.AddedReplicaRegions)
	}

	waits, err := f.deleteUntilStopped(obj)
	if !isRetryReason(err, reasonForeignReplicas) || !strings.Contains(err.Error(), "eu-west-1") {
		t.Fatalf("delete: %v, want %s naming eu-west-1 (waits %q)", err, reasonForeignReplicas, waits)
	}
	if got := replicasOf(f.describe(obj.Name)); !slices.Equal(got, []string{"eu-west-1"}) {
		t.Errorf("replicas left = %v, want the owner's eu-west-1 alone", got)
	}
	if calls := f.proxy.Calls()["DeleteTable"]; calls != 0 {
		t.Errorf("DeleteTable sent %d times", calls)
	}
}

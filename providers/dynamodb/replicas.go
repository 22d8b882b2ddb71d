package dynamodb

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// A global table's replicas as the adapter handles them beside the plan
// (plan/replicas.go): the status's record of them, which of them Tether
// added, and their removal before the table is deleted.

// recordReplicas shows every replica AWS reports in the status, sorted.
func recordReplicas(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	var out []awsv1alpha1.ReplicaStatus
	for _, r := range d.Replicas {
		out = append(out, awsv1alpha1.ReplicaStatus{RegionName: aws.ToString(r.RegionName), ReplicaStatus: string(r.ReplicaStatus),
			Description: aws.ToString(r.ReplicaStatusDescription), PercentProgress: aws.ToString(r.ReplicaStatusPercentProgress)})
	}
	slices.SortFunc(out, func(a, b awsv1alpha1.ReplicaStatus) int { return strings.Compare(a.RegionName, b.RegionName) })
	obj.Status.Replicas = out
}

// removeReplicasFirst is the start of deleting a global table: the
// replicas that are the object's go one by one, each once the table is
// idle, before DeleteTable (the order ACK follows,
// sdk_delete_pre_build_request.go.tpl). The object's are those Tether's
// own record says it added for it (addedReplicas), and those its spec
// names, which it could have Tether remove by dropping them from the spec
// anyway; never because the status says so. Others (of a table it adopted,
// or added by someone else) are never removed: with one left, the table is
// not deleted either, as what DeleteTable does to the other Regions is not
// documented, and the delete waits, saying so. done is false while the
// delete cannot go on; the error says why.
func (p *Provider) removeReplicasFirst(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (done bool, err error) {
	if plan.Joins(&obj.Spec) {
		// A member that joined another account's table lists the other
		// members, which are not its own: it leaves by DeleteTable in its
		// account and Region (multiaccount.go).
		return true, nil
	}
	reps := plan.WithoutRegion(plan.ObservedReplicas(d), ep.Region)
	if len(reps) == 0 {
		return true, nil
	}
	name := aws.ToString(d.TableName)
	if busy := plan.ReplicasBusy(reps); busy != "" {
		return false, providers.Pendingf(p.opts.TransitionPoll, reasonDeleting, "removing the replicas of table %s before deleting it: %s", name, busy)
	}
	var ours, others, going []string
	for _, region := range slices.Sorted(maps.Keys(reps)) {
		switch {
		case p.flights.unseen(ep.TableKey(name), string(plan.StepDeleteReplica)+":"+region, time.Now()):
			going = append(going, region) // a late read: its removal is in flight
		case p.replicas.has(ep.TableKey(name), region, obj.UID) || specNamesReplica(obj, region):
			ours = append(ours, region)
		default:
			others = append(others, region)
		}
	}
	if d.MultiRegionConsistency == types.MultiRegionConsistencyStrong && len(going) == 0 {
		return p.leaveStrongFirst(ctx, ep, d, ours, others) // all together or none (mrsc.go)
	}
	if len(going) > 0 && (len(ours) == 0 || d.MultiRegionConsistency == types.MultiRegionConsistencyStrong) {
		return false, providers.Pendingf(p.opts.TransitionPoll, reasonDeleting, "DynamoDB accepted the removal of replica %s of table %s "+
			"and its reads do not show it yet (they are eventually consistent)", strings.Join(going, ", "), name)
	}
	if len(ours) == 0 {
		return false, providers.RetryAfter(conflictDelay, reasonForeignReplicas, fmt.Errorf(
			"table %s has replicas Tether did not add (%s): they are not removed, so the table is not deleted either; "+
				"remove them in AWS to let the delete go on, or annotate the object tether.dev/reconcile: paused to let go of the table "+
				"without touching it", name, strings.Join(others, ", ")))
	}
	region := ours[0]
	_, err = ep.API.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(region)}}}})
	if err != nil {
		return false, access.Classify(err)
	}
	p.flights.accepted(ep.TableKey(name), flight{call: "remove replica " + region, subject: string(plan.StepDeleteReplica) + ":" + region,
		at: time.Now(), settle: p.opts.SettleWindow})
	return false, providers.Pendingf(time.Second, reasonDeleting, "removing replica %s of table %s before deleting the table (%d of Tether's left)",
		region, name, len(ours))
}

// specNamesReplica says whether obj's spec names a replica in region.
func specNamesReplica(obj *awsv1alpha1.DynamoDBTable, region string) bool {
	return slices.ContainsFunc(obj.Spec.Replicas, func(r awsv1alpha1.Replica) bool { return r.RegionName == region })
}

// recordAddedReplica notes the replicas Tether just added (one, or those of
// a strongly consistent global table), in its own record
// and, for the user to see, in the status.
func (p *Provider) recordAddedReplica(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step) {
	if (step.Kind != plan.StepCreateReplica && step.Kind != plan.StepCreateStrong) || step.Table == nil {
		return
	}
	for _, u := range step.Table.ReplicaUpdates {
		if u.Create == nil {
			continue
		}
		region := aws.ToString(u.Create.RegionName)
		p.replicas.add(ep.TableKey(obj.ResolvedTableName()), region, obj.UID)
		if !slices.Contains(obj.Status.AddedReplicaRegions, region) {
			obj.Status.AddedReplicaRegions = append(slices.Clone(obj.Status.AddedReplicaRegions), region)
			slices.Sort(obj.Status.AddedReplicaRegions)
		}
	}
}

// forgetGoneReplicas drops from Tether's record of the replicas it added,
// and from status.addedReplicaRegions, those an idle table no longer has
// (removed by Tether or by someone else): one added later by someone else
// is not Tether's. A replica Tether just added may not show yet
// (DescribeTable is eventually consistent): it is kept while its add is in
// flight (inflight.go).
func (p *Provider) forgetGoneReplicas(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	if d.TableStatus != types.TableStatusActive {
		return
	}
	have, now, key := plan.ObservedReplicas(d), time.Now(), ep.TableKey(obj.ResolvedTableName())
	gone := func(region string) bool {
		_, ok := have[region]
		return !ok && !p.flights.unseen(key, string(plan.StepCreateReplica)+":"+region, now)
	}
	for _, region := range p.replicas.regions(key) {
		if gone(region) {
			p.replicas.drop(key, region)
		}
	}
	if len(obj.Status.AddedReplicaRegions) == 0 {
		return
	}
	obj.Status.AddedReplicaRegions = slices.DeleteFunc(slices.Clone(obj.Status.AddedReplicaRegions), gone)
	if len(obj.Status.AddedReplicaRegions) == 0 {
		obj.Status.AddedReplicaRegions = nil
	}
}

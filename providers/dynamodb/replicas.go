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
)

// Global tables, version 2019.11.21: replicas are added, changed and removed
// through UpdateTable's ReplicaUpdates, one action per call (AWS recommends
// "separate requests for adding or removing replicas", API
// UpdateGlobalTable; ACK sends one per UpdateTable, hooks_replica_updates.go),
// and the table is UPDATING meanwhile, so nothing else is sent until it is
// done. A replica needs the stream with NEW_AND_OLD_IMAGES and on-demand
// capacity or write autoscaling (developerguide
// V2globaltables_reqs_bestpractices.html): the planner sends those first.

// replica is one Region of a global table, in the form both sides share.
// On the desired side an empty or nil field is not managed.
type replica struct {
	KMSKey       string
	TableClass   string
	ReadCapacity *int64 // provisioned read capacity override
	MaxReads     *int64 // on-demand read request cap override
	Indexes      map[string]replicaIndex
	Status       string // observed only
	Description  string // observed only
}

type replicaIndex struct{ ReadCapacity, MaxReads *int64 }

// Replica statuses (API ReplicaDescription) that mean the replica is being
// changed, and those that mean it is not working.
var (
	replicaInFlux     = []types.ReplicaStatus{types.ReplicaStatusCreating, types.ReplicaStatusUpdating, types.ReplicaStatusDeleting}
	replicaNotWorking = []types.ReplicaStatus{types.ReplicaStatusCreationFailed, types.ReplicaStatusRegionDisabled,
		types.ReplicaStatusInaccessibleEncryptionCredentials, types.ReplicaStatusArchiving, types.ReplicaStatusArchived,
		types.ReplicaStatusReplicationNotAuthorized}
)

func specReplicas(spec *awsv1alpha1.DynamoDBTableSpec) map[string]replica {
	if len(spec.Replicas) == 0 {
		return nil
	}
	out := map[string]replica{}
	for _, r := range spec.Replicas {
		rep := replica{KMSKey: r.KMSMasterKeyID, TableClass: r.TableClassOverride}
		if o := r.ProvisionedThroughputOverride; o != nil {
			rep.ReadCapacity = aws.Int64(o.ReadCapacityUnits)
		}
		if o := r.OnDemandThroughputOverride; o != nil {
			rep.MaxReads = aws.Int64(o.MaxReadRequestUnits)
		}
		for _, ix := range r.GlobalSecondaryIndexes {
			if rep.Indexes == nil {
				rep.Indexes = map[string]replicaIndex{}
			}
			ri := replicaIndex{}
			if o := ix.ProvisionedThroughputOverride; o != nil {
				ri.ReadCapacity = aws.Int64(o.ReadCapacityUnits)
			}
			if o := ix.OnDemandThroughputOverride; o != nil {
				ri.MaxReads = aws.Int64(o.MaxReadRequestUnits)
			}
			rep.Indexes[ix.IndexName] = ri
		}
		out[r.RegionName] = rep
	}
	return out
}

// awsReplicas reads DescribeTable's replicas; a table that is no global
// table has none (an empty map: known, unlike nil).
func awsReplicas(d *types.TableDescription) map[string]replica {
	out := map[string]replica{}
	for _, r := range d.Replicas {
		rep := replica{KMSKey: aws.ToString(r.KMSMasterKeyId), Status: string(r.ReplicaStatus),
			Description: aws.ToString(r.ReplicaStatusDescription)}
		if s := r.ReplicaTableClassSummary; s != nil {
			rep.TableClass = string(s.TableClass)
		}
		if o := r.ProvisionedThroughputOverride; o != nil {
			rep.ReadCapacity = o.ReadCapacityUnits
		}
		if o := r.OnDemandThroughputOverride; o != nil {
			rep.MaxReads = o.MaxReadRequestUnits
		}
		for _, ix := range r.GlobalSecondaryIndexes {
			if rep.Indexes == nil {
				rep.Indexes = map[string]replicaIndex{}
			}
			ri := replicaIndex{}
			if o := ix.ProvisionedThroughputOverride; o != nil {
				ri.ReadCapacity = o.ReadCapacityUnits
			}
			if o := ix.OnDemandThroughputOverride; o != nil {
				ri.MaxReads = o.MaxReadRequestUnits
			}
			rep.Indexes[aws.ToString(ix.IndexName)] = ri
		}
		out[aws.ToString(r.RegionName)] = rep
	}
	return out
}

// withoutRegion drops the table's own Region from what DescribeTable
// lists, should AWS list it: the spec cannot name it (CEL), so it is never
// the planner's to add or remove.
func withoutRegion(reps map[string]replica, region string) map[string]replica {
	if _, ok := reps[region]; !ok {
		return reps
	}
	out := maps.Clone(reps)
	delete(out, region)
	return out
}

// differs names what of want a replica does not have, "" when nothing.
func (want replica) differs(have replica) string {
	var out []string
	if want.KMSKey != "" && !kmsKeyMatches(want.KMSKey, have.KMSKey) {
		out = append(out, "KMS key")
	}
	if want.TableClass != "" && want.TableClass != orDefault(have.TableClass, string(types.TableClassStandard)) {
		out = append(out, "table class")
	}
	if !sameOverride(want.ReadCapacity, have.ReadCapacity) {
		out = append(out, "read capacity")
	}
	if !sameOverride(want.MaxReads, have.MaxReads) {
		out = append(out, "read request limit")
	}
	for _, name := range slices.Sorted(maps.Keys(want.Indexes)) {
		w, h := want.Indexes[name], have.Indexes[name]
		if !sameOverride(w.ReadCapacity, h.ReadCapacity) || !sameOverride(w.MaxReads, h.MaxReads) {
			out = append(out, "index "+name+" overrides")
		}
	}
	return strings.Join(out, ", ")
}

func sameOverride(want, have *int64) bool { return want == nil || (have != nil && *have == *want) }

// deleteReplicas removes the replicas Tether added (or the spec named) that
// the spec no longer names, one per call, first: a replica's removal is
// what lets the stream or capacity mode it needed change.
func (p *planner) deleteReplicas() {
	if p.cur.Replicas == nil {
		return
	}
	for _, region := range slices.Sorted(slices.Values(p.want.RemoveReplicas)) {
		have, ok := p.cur.Replicas[region]
		if _, wanted := p.want.Replicas[region]; wanted || !ok || have.Status == string(types.ReplicaStatusDeleting) {
			continue
		}
		p.add(p.replicaStep(StepDeleteReplica, "remove replica "+region,
			types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(region)}}))
		p.cur.Replicas = maps.Clone(p.cur.Replicas)
		delete(p.cur.Replicas, region)
	}
}

// addReplicas adds the spec's missing replicas and corrects the overrides
// of working ones, one per call, after everything they need is planned.
func (p *planner) addReplicas() {
	if p.cur.Replicas == nil {
		return
	}
	for _, region := range slices.Sorted(maps.Keys(p.want.Replicas)) {
		want := p.want.Replicas[region]
		have, ok := p.cur.Replicas[region]
		switch {
		case !ok:
			p.add(p.replicaStep(StepCreateReplica, "add replica "+region,
				types.ReplicationGroupUpdate{Create: createReplicaAction(region, want)}))
		case have.Status == string(types.ReplicaStatusActive) && want.differs(have) != "":
			p.add(p.replicaStep(StepUpdateReplica, fmt.Sprintf("change replica %s (%s)", region, want.differs(have)),
				types.ReplicationGroupUpdate{Update: updateReplicaAction(region, want)}))
		default:
			continue
		}
		want.Status = string(types.ReplicaStatusActive)
		p.cur.Replicas = maps.Clone(p.cur.Replicas)
		p.cur.Replicas[region] = want
	}
}

func (p *planner) replicaStep(kind StepKind, desc string, u types.ReplicationGroupUpdate) Step {
	in := p.updateTable()
	in.ReplicaUpdates = []types.ReplicationGroupUpdate{u}
	return Step{Kind: kind, Description: desc, Table: in}
}

func createReplicaAction(region string, r replica) *types.CreateReplicationGroupMemberAction {
	u := updateReplicaAction(region, r)
	return &types.CreateReplicationGroupMemberAction{RegionName: u.RegionName, KMSMasterKeyId: u.KMSMasterKeyId,
		TableClassOverride: u.TableClassOverride, ProvisionedThroughputOverride: u.ProvisionedThroughputOverride,
		OnDemandThroughputOverride: u.OnDemandThroughputOverride, GlobalSecondaryIndexes: u.GlobalSecondaryIndexes}
}

func updateReplicaAction(region string, r replica) *types.UpdateReplicationGroupMemberAction {
	u := &types.UpdateReplicationGroupMemberAction{RegionName: aws.String(region), TableClassOverride: types.TableClass(r.TableClass)}
	if r.KMSKey != "" {
		u.KMSMasterKeyId = aws.String(r.KMSKey)
	}
	if r.ReadCapacity != nil {
		u.ProvisionedThroughputOverride = &types.ProvisionedThroughputOverride{ReadCapacityUnits: r.ReadCapacity}
	}
	if r.MaxReads != nil {
		u.OnDemandThroughputOverride = &types.OnDemandThroughputOverride{MaxReadRequestUnits: r.MaxReads}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Indexes)) {
		ix := r.Indexes[name]
		g := types.ReplicaGlobalSecondaryIndex{IndexName: aws.String(name)}
		if ix.ReadCapacity != nil {
			g.ProvisionedThroughputOverride = &types.ProvisionedThroughputOverride{ReadCapacityUnits: ix.ReadCapacity}
		}
		if ix.MaxReads != nil {
			g.OnDemandThroughputOverride = &types.OnDemandThroughputOverride{MaxReadRequestUnits: ix.MaxReads}
		}
		u.GlobalSecondaryIndexes = append(u.GlobalSecondaryIndexes, g)
	}
	return u
}

// replicasBusy says which replica is being changed, "" when none.
func replicasBusy(reps map[string]replica) string {
	for _, region := range slices.Sorted(maps.Keys(reps)) {
		if slices.Contains(replicaInFlux, types.ReplicaStatus(reps[region].Status)) {
			return fmt.Sprintf("replica %s is %s", region, reps[region].Status)
		}
	}
	return ""
}

// replicasNotWorking names the spec's replicas AWS reports as not working
// (creation failed, Region disabled, KMS key inaccessible, archived, ...):
// nothing Tether sends fixes those, so the table is not Ready and says why.
func replicasNotWorking(want, have map[string]replica) string {
	var out []string
	for _, region := range slices.Sorted(maps.Keys(want)) {
		r, ok := have[region]
		if ok && slices.Contains(replicaNotWorking, types.ReplicaStatus(r.Status)) {
			s := fmt.Sprintf("replica %s is %s", region, r.Status)
			if r.Description != "" {
				s += " (" + r.Description + ")"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

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

// managedReplicaRegions are the replicas Tether manages: those it managed
// before that are still there (a Region dropped from the spec is removed
// next), plus the spec's that are there.
func managedReplicaRegions(before []string, want, have map[string]replica) []string {
	var out []string
	for _, region := range before {
		if _, ok := have[region]; ok {
			out = append(out, region)
		}
	}
	for region := range want {
		if _, ok := have[region]; ok && !slices.Contains(out, region) {
			out = append(out, region)
		}
	}
	slices.Sort(out)
	return out
}

// removeReplicasFirst is the start of deleting a global table: the
// replicas Tether added (status.addedReplicaRegions) go one by one, each
// once the table is idle, before DeleteTable (the order ACK follows,
// sdk_delete_pre_build_request.go.tpl). Replicas Tether did not add (of a
// table it adopted, or added by someone else) are never removed: with one
// left, the table is not deleted either, as what DeleteTable does to the
// other Regions is not documented, and the delete waits, saying so. done is
// false while the delete cannot go on; the error says why.
func (p *Provider) removeReplicasFirst(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (done bool, err error) {
	reps := withoutRegion(awsReplicas(d), ep.Region)
	if len(reps) == 0 {
		return true, nil
	}
	name := aws.ToString(d.TableName)
	if busy := replicasBusy(reps); busy != "" {
		return false, providers.Waitf(p.opts.TransitionPoll, ReasonDeleting, "removing the replicas of table %s before deleting it: %s", name, busy)
	}
	var ours, others, going []string
	for _, region := range slices.Sorted(maps.Keys(reps)) {
		switch {
		case p.unseen(ep, name, string(StepDeleteReplica)+":"+region, time.Now()):
			going = append(going, region) // a late read: its removal is in flight
		case slices.Contains(obj.Status.AddedReplicaRegions, region):
			ours = append(ours, region)
		default:
			others = append(others, region)
		}
	}
	if len(ours) == 0 && len(going) > 0 {
		return false, providers.Waitf(p.opts.TransitionPoll, ReasonDeleting, "DynamoDB accepted the removal of replica %s of table %s "+
			"and its reads do not show it yet (they are eventually consistent)", strings.Join(going, ", "), name)
	}
	if len(ours) == 0 {
		return false, providers.RetryAfter(conflictDelay, ReasonForeignReplicas, fmt.Errorf(
			"table %s has replicas Tether did not add (%s): they are not removed, so the table is not deleted either; "+
				"remove them in AWS to let the delete go on, or annotate the object tether.dev/reconcile: paused to let go of the table "+
				"without touching it", name, strings.Join(others, ", ")))
	}
	region := ours[0]
	_, err = ep.API.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(region)}}}})
	if err != nil {
		return false, classify(err)
	}
	p.accepted(ep, name, flight{call: "remove replica " + region, subject: string(StepDeleteReplica) + ":" + region,
		at: time.Now(), settle: p.opts.SettleWindow})
	return false, providers.Waitf(time.Second, ReasonDeleting, "removing replica %s of table %s before deleting the table (%d of Tether's left)",
		region, name, len(ours))
}

// recordAddedReplica notes a replica Tether just added.
func recordAddedReplica(obj *awsv1alpha1.DynamoDBTable, step Step) {
	if step.Kind != StepCreateReplica || step.Table == nil || len(step.Table.ReplicaUpdates) != 1 {
		return
	}
	region := aws.ToString(step.Table.ReplicaUpdates[0].Create.RegionName)
	if !slices.Contains(obj.Status.AddedReplicaRegions, region) {
		obj.Status.AddedReplicaRegions = append(slices.Clone(obj.Status.AddedReplicaRegions), region)
		slices.Sort(obj.Status.AddedReplicaRegions)
	}
}

// forgetGoneReplicas drops from status.addedReplicaRegions the replicas an
// idle table no longer has (removed by Tether or by someone else): one
// added later by someone else is not Tether's. A replica Tether just added
// may not show yet (DescribeTable is eventually consistent): it is kept
// while its add is in flight (inflight.go).
func (p *Provider) forgetGoneReplicas(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	if d.TableStatus != types.TableStatusActive || len(obj.Status.AddedReplicaRegions) == 0 {
		return
	}
	have, now := awsReplicas(d), time.Now()
	obj.Status.AddedReplicaRegions = slices.DeleteFunc(slices.Clone(obj.Status.AddedReplicaRegions), func(region string) bool {
		_, ok := have[region]
		return !ok && !p.unseen(ep, obj.ResolvedTableName(), string(StepCreateReplica)+":"+region, now)
	})
	if len(obj.Status.AddedReplicaRegions) == 0 {
		obj.Status.AddedReplicaRegions = nil
	}
}

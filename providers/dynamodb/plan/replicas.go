package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Global tables, version 2019.11.21: replicas are added, changed and removed
// through UpdateTable's ReplicaUpdates, one action per call (AWS recommends
// "separate requests for adding or removing replicas", API
// UpdateGlobalTable; ACK sends one per UpdateTable, hooks_replica_updates.go),
// and the table is UPDATING meanwhile, so nothing else is sent until it is
// done. A replica needs the stream with NEW_AND_OLD_IMAGES and on-demand
// capacity or write autoscaling (developerguide
// V2globaltables_reqs_bestpractices.html): the planner sends those first.

// FeatureReplicas names replicas where an endpoint may lack them.
const FeatureReplicas = "replicas"

// Kinds of the replica steps.
const (
	StepDeleteReplica StepKind = "DeleteReplica"
	StepCreateReplica StepKind = "CreateReplica"
	StepUpdateReplica StepKind = "UpdateReplica"
)

// Replica statuses (API ReplicaDescription) that mean the replica is being
// changed, and those that mean it is not working.
var (
	replicaInFlux     = []types.ReplicaStatus{types.ReplicaStatusCreating, types.ReplicaStatusUpdating, types.ReplicaStatusDeleting}
	replicaNotWorking = []types.ReplicaStatus{types.ReplicaStatusCreationFailed, types.ReplicaStatusRegionDisabled,
		types.ReplicaStatusInaccessibleEncryptionCredentials, types.ReplicaStatusArchiving, types.ReplicaStatusArchived,
		types.ReplicaStatusReplicationNotAuthorized}
)

func init() {
	register(&feature{
		name:    FeatureReplicas,
		kinds:   []StepKind{StepDeleteReplica, StepCreateReplica, StepUpdateReplica},
		uses:    func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return len(spec.Replicas) > 0 },
		desire:  func(s source, want *Table) { want.Replicas = specReplicas(s.DynamoDBTableSpec) },
		observe: func(d *types.TableDescription, have *Table) { have.Replicas = ObservedReplicas(d) },
		hide:    func(have *Table) { have.Replicas = nil },
		busy:    func(have *Table) string { return ReplicasBusy(have.Replicas) },
		passes:  []pass{{atDeleteReplicas, (*planner).deleteReplicas}, {atAddReplicas, (*planner).addReplicas}},
	})
}

func specReplicas(spec *awsv1alpha1.DynamoDBTableSpec) map[string]Replica {
	if len(spec.Replicas) == 0 {
		return nil
	}
	out := map[string]Replica{}
	for _, r := range spec.Replicas {
		rep := Replica{KMSKey: r.KMSMasterKeyID, TableClass: r.TableClassOverride}
		if o := r.ProvisionedThroughputOverride; o != nil {
			rep.ReadCapacity = aws.Int64(o.ReadCapacityUnits)
		}
		if o := r.OnDemandThroughputOverride; o != nil {
			rep.MaxReads = aws.Int64(o.MaxReadRequestUnits)
		}
		for _, ix := range r.GlobalSecondaryIndexes {
			if rep.Indexes == nil {
				rep.Indexes = map[string]ReplicaIndex{}
			}
			ri := ReplicaIndex{}
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

// ObservedReplicas reads DescribeTable's replicas; a table that is no global
// table has none (an empty map: known, unlike nil).
func ObservedReplicas(d *types.TableDescription) map[string]Replica {
	out := map[string]Replica{}
	for _, r := range d.Replicas {
		rep := Replica{KMSKey: aws.ToString(r.KMSMasterKeyId), Status: string(r.ReplicaStatus),
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
				rep.Indexes = map[string]ReplicaIndex{}
			}
			ri := ReplicaIndex{}
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

// WithoutRegion drops the table's own Region from what DescribeTable
// lists, should AWS list it: the spec cannot name it (CEL), so it is never
// the planner's to add or remove.
func WithoutRegion(reps map[string]Replica, region string) map[string]Replica {
	if _, ok := reps[region]; !ok {
		return reps
	}
	out := maps.Clone(reps)
	delete(out, region)
	return out
}

// differs names what of want a replica does not have, "" when nothing.
func (want Replica) differs(have Replica) string {
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
	// A strongly consistent global table's replicas go all together or
	// not at all (mrsc.go).
	if p.cur.Replicas == nil || p.cur.isStrong() {
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
		case !ok && (p.want.isStrong() || p.cur.isStrong()):
			continue // made in one call with the others (mrsc.go), or waited for
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

func createReplicaAction(region string, r Replica) *types.CreateReplicationGroupMemberAction {
	u := updateReplicaAction(region, r)
	return &types.CreateReplicationGroupMemberAction{RegionName: u.RegionName, KMSMasterKeyId: u.KMSMasterKeyId,
		TableClassOverride: u.TableClassOverride, ProvisionedThroughputOverride: u.ProvisionedThroughputOverride,
		OnDemandThroughputOverride: u.OnDemandThroughputOverride, GlobalSecondaryIndexes: u.GlobalSecondaryIndexes}
}

func updateReplicaAction(region string, r Replica) *types.UpdateReplicationGroupMemberAction {
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

// ReplicasBusy says which replica is being changed, "" when none.
func ReplicasBusy(reps map[string]Replica) string {
	for _, region := range slices.Sorted(maps.Keys(reps)) {
		if slices.Contains(replicaInFlux, types.ReplicaStatus(reps[region].Status)) {
			return fmt.Sprintf("replica %s is %s", region, reps[region].Status)
		}
	}
	return ""
}

// ReplicasNotWorking names the spec's replicas AWS reports as not working
// (creation failed, Region disabled, KMS key inaccessible, archived, ...):
// nothing Tether sends fixes those, so the table is not Ready and says why.
func ReplicasNotWorking(want, have map[string]Replica) string {
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

// ManagedReplicaRegions are the replicas Tether manages: those it managed
// before that are still there (a Region dropped from the spec is removed
// next), plus the spec's that are there.
func ManagedReplicaRegions(before []string, want, have map[string]Replica) []string {
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

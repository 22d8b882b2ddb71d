package plan

import (
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestStrongGlobalTableSteps: a single-Region table becomes a strongly
// consistent global table in one UpdateTable carrying the consistency,
// every replica and the witness and nothing else; one that is STRONG plans
// no replica step (frozen); one of eventual consistency is blocked, not
// converted; the spec dropping every replica and the witness is one call
// deleting them all, and only when every replica is Tether's.
func TestStrongGlobalTableSteps(t *testing.T) {
	const east2, west2, eu = "us-east-2", "us-west-2", "eu-west-1"
	activeIn := func(regions ...string) map[string]Replica {
		out := map[string]Replica{}
		for _, r := range regions {
			out[r] = Replica{Status: "ACTIVE"}
		}
		return out
	}
	cases := []struct {
		name             string
		wantStrong       bool
		wantReplicas     []string
		wantWitness      string
		remove           []string
		haveStrong       bool
		haveReplicas     map[string]Replica
		haveWitness      map[string]string
		steps            []StepKind
		creates, deletes []string
		witness          types.GlobalTableWitnessGroupUpdate
		blocked          bool
	}{
		{name: "two replicas: one call", wantStrong: true, wantReplicas: []string{east2, west2},
			haveReplicas: map[string]Replica{}, haveWitness: map[string]string{},
			steps: []StepKind{StepCreateStrong}, creates: []string{east2, west2}},
		{name: "replica and witness: one call", wantStrong: true, wantReplicas: []string{east2}, wantWitness: west2,
			haveReplicas: map[string]Replica{}, haveWitness: map[string]string{},
			steps: []StepKind{StepCreateStrong}, creates: []string{east2},
			witness: types.GlobalTableWitnessGroupUpdate{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(west2)}}},
		{name: "STRONG and complete: nothing", wantStrong: true, wantReplicas: []string{east2}, wantWitness: west2,
			haveStrong: true, haveReplicas: activeIn(east2), haveWitness: map[string]string{west2: "ACTIVE"}},
		{name: "STRONG, replicas not listed yet: nothing sent", wantStrong: true, wantReplicas: []string{east2, west2},
			haveStrong: true, haveReplicas: map[string]Replica{}, haveWitness: map[string]string{}},
		{name: "STRONG, a replica the spec drops alone: nothing (frozen)", wantStrong: true, wantReplicas: []string{east2, west2},
			remove: []string{eu}, haveStrong: true, haveReplicas: activeIn(east2, west2, eu), haveWitness: map[string]string{}},
		{name: "eventual global table: blocked, not converted", wantStrong: true, wantReplicas: []string{east2, west2},
			haveReplicas: activeIn(east2), haveWitness: map[string]string{}, blocked: true},
		{name: "the way out: every replica and the witness in one call", remove: []string{east2},
			haveStrong: true, haveReplicas: activeIn(east2), haveWitness: map[string]string{west2: "ACTIVE"},
			steps: []StepKind{StepLeaveStrong}, deletes: []string{east2},
			witness: types.GlobalTableWitnessGroupUpdate{Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String(west2)}}},
		{name: "the way out with a replica not Tether's: blocked", remove: []string{east2},
			haveStrong: true, haveReplicas: activeIn(east2, west2), haveWitness: map[string]string{}, blocked: true},
		{name: "not Tether's at all: left alone", haveStrong: true, haveReplicas: activeIn(east2, west2), haveWitness: map[string]string{}},
		{name: "witness still CREATING: the way out waits", remove: []string{east2},
			haveStrong: true, haveReplicas: activeIn(east2), haveWitness: map[string]string{west2: "CREATING"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := with(spec(ppr, nil), func(tb *Table) {
				tb.Stream, tb.RemoveReplicas = "NEW_AND_OLD_IMAGES", c.remove
				if c.wantStrong {
					tb.Consistency, tb.Witnesses = strong, map[string]string{}
				}
				for _, r := range c.wantReplicas {
					if tb.Replicas == nil {
						tb.Replicas = map[string]Replica{}
					}
					tb.Replicas[r] = Replica{}
				}
				if c.wantWitness != "" {
					tb.Witnesses[c.wantWitness] = "ACTIVE"
				}
			})
			have := with(active(ppr, nil), func(tb *Table) {
				tb.Stream, tb.Replicas, tb.Witnesses = "NEW_AND_OLD_IMAGES", c.haveReplicas, c.haveWitness
				if c.haveStrong {
					tb.Consistency = strong
				}
			})
			p := Compute("t", want, have, Options{})
			var kinds []StepKind
			for _, s := range p.Steps {
				kinds = append(kinds, s.Kind)
			}
			if !slices.Equal(kinds, c.steps) {
				t.Fatalf("steps %v (%q), want %v", kinds, p.Descriptions(), c.steps)
			}
			if c.blocked != (p.Blocked != "") || (c.blocked && p.BlockedReason != ReasonStrongRefused) {
				t.Fatalf("blocked %q (%s), want blocked=%v", p.Blocked, p.BlockedReason, c.blocked)
			}
			if len(p.Steps) == 0 {
				return
			}
			in := p.Steps[0].Table
			var creates, deletes []string
			for _, u := range in.ReplicaUpdates {
				switch {
				case u.Create != nil:
					creates = append(creates, aws.ToString(u.Create.RegionName))
				case u.Delete != nil:
					deletes = append(deletes, aws.ToString(u.Delete.RegionName))
				default:
					t.Errorf("a replica update that neither creates nor deletes")
				}
			}
			if !slices.Equal(creates, c.creates) || !slices.Equal(deletes, c.deletes) {
				t.Errorf("creates %v, deletes %v; want %v, %v", creates, deletes, c.creates, c.deletes)
			}
			if (in.MultiRegionConsistency == types.MultiRegionConsistencyStrong) != (c.steps[0] == StepCreateStrong) {
				t.Errorf("MultiRegionConsistency %q", in.MultiRegionConsistency)
			}
			switch w := in.GlobalTableWitnessUpdates; {
			case c.witness.Create == nil && c.witness.Delete == nil && len(w) > 0:
				t.Errorf("witness updates %v, want none", w)
			case c.witness.Create != nil && (len(w) != 1 || w[0].Create == nil || aws.ToString(w[0].Create.RegionName) != aws.ToString(c.witness.Create.RegionName)):
				t.Errorf("witness updates %v, want a create in %s", w, aws.ToString(c.witness.Create.RegionName))
			case c.witness.Delete != nil && (len(w) != 1 || w[0].Delete == nil || aws.ToString(w[0].Delete.RegionName) != aws.ToString(c.witness.Delete.RegionName)):
				t.Errorf("witness updates %v, want a delete in %s", w, aws.ToString(c.witness.Delete.RegionName))
			}
			if !onlyReplicaFields(in) {
				t.Errorf("the call carries another field: %+v", in)
			}
		})
	}
}

// onlyReplicaFields: "Requests that modify replicas or witnesses must not
// also modify other fields" (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md).
func onlyReplicaFields(in *dynamodb.UpdateTableInput) bool {
	c := *in
	c.TableName, c.ReplicaUpdates, c.GlobalTableWitnessUpdates, c.MultiRegionConsistency = nil, nil, nil, ""
	return reflect.DeepEqual(c, dynamodb.UpdateTableInput{})
}

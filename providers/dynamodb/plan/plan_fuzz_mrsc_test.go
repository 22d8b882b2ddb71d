package plan

import (
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan's part for multi-Region strong consistency (mrsc.go): what the
// generator adds to the spec and to what AWS reports, the legality rules
// of the MRSC calls (each the rule the model endpoint internal/ddbgap
// enforces, from aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md), and what AWS does for them.
// Its choices come after the others, so the committed corpus keeps its
// meaning.

// fuzzStrong is what MRSC adds to one case: the Regions of a STRONG table
// AWS reports that are Tether's to remove.
type fuzzStrong struct{ remove []string }

// mrsc2026 makes some specs STRONG, as the CRD allows them (two replicas,
// or one and a witness; a stream; no disassociation; not PROVISIONED here,
// whose replicas need write autoscaling everywhere), and has AWS report a
// single-Region table, a STRONG one with its members in any status, or a
// STRONG one that does not list its members yet.
func (s *fuzzSource) mrsc2026(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) *fuzzStrong {
	out := &fuzzStrong{}
	if choice := s.intn(3); choice > 0 && spec.BillingMode != awsv1alpha1.BillingModeProvisioned {
		spec.MultiRegionConsistency = awsv1alpha1.MultiRegionConsistencyStrong
		spec.Replicas = []awsv1alpha1.Replica{{RegionName: fuzzRegions[0]}, {RegionName: fuzzRegions[1]}}
		if choice == 2 {
			spec.Replicas = spec.Replicas[:1]
			spec.GlobalTableWitness = &awsv1alpha1.GlobalTableWitness{RegionName: fuzzRegions[2]}
		}
		spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		spec.DisassociateReplicas, spec.DisassociationProtectionEnabled = nil, nil
	}
	switch s.intn(4) {
	case 1: // STRONG, its members listed: the spec's, or two of its own
		d.MultiRegionConsistency, d.Replicas, d.GlobalTableWitnesses = types.MultiRegionConsistencyStrong, nil, nil
		regions, witness := fuzzRegions[:2], ""
		if spec.MultiRegionConsistency != "" {
			regions = nil
			for _, r := range spec.Replicas {
				regions = append(regions, r.RegionName)
			}
			if spec.GlobalTableWitness != nil {
				witness = spec.GlobalTableWitness.RegionName
			}
		}
		for _, r := range regions {
			d.Replicas = append(d.Replicas, types.ReplicaDescription{RegionName: aws.String(r),
				ReplicaStatus: types.ReplicaStatus(s.pick("ACTIVE", "CREATING", "REPLICATION_NOT_AUTHORIZED"))})
		}
		if witness != "" {
			d.GlobalTableWitnesses = []types.GlobalTableWitnessDescription{{RegionName: aws.String(witness),
				WitnessStatus: types.WitnessStatus(s.pick("ACTIVE", "CREATING"))}}
		}
		if spec.MultiRegionConsistency == "" && s.bool() {
			out.remove = slices.Clone(regions) // the spec dropped them: the way out
		}
	case 2: // STRONG, members not listed yet
		d.MultiRegionConsistency, d.Replicas, d.GlobalTableWitnesses = types.MultiRegionConsistencyStrong, nil, nil
	case 3: // single-Region
		d.Replicas, d.GlobalTableWitnesses = nil, nil
	}
	return out
}

func (f *fuzzStrong) apply(want *Table) {
	for _, r := range f.remove {
		if !slices.Contains(want.RemoveReplicas, r) {
			want.RemoveReplicas = append(want.RemoveReplicas, r)
		}
	}
}

// checkStrong holds the UpdateTable calls of MRSC to AWS's rules and says
// whether in is one (more than one replica action, a witness or the
// consistency): the replica checks do not apply to it then. Of any other
// call it checks that it does not change a STRONG table's replica set one
// by one, nor make a STRONG spec's replicas one by one.
func (c *newerCheck) checkStrong(fail func(string, ...any), in *dynamodb.UpdateTableInput) bool {
	if in.MultiRegionConsistency == "" && len(in.GlobalTableWitnessUpdates) == 0 && len(in.ReplicaUpdates) < 2 {
		for _, u := range in.ReplicaUpdates {
			if c.strong && (u.Create != nil || u.Delete != nil || u.Disassociate != nil) {
				fail("changes the replica set of a STRONG table one replica at a time")
			}
			if !c.strong && c.want.isStrong() && u.Create != nil {
				fail("creates a replica alone for a STRONG spec")
			}
		}
		if c.strong && in.DisassociationProtectionEnabled != nil {
			fail("disassociation protection of a STRONG table")
		}
		return false
	}
	if !onlyReplicaFields(in) {
		fail("Requests that modify replicas or witnesses must not also modify other fields")
	}
	if len(in.GlobalTableWitnessUpdates) > 1 {
		fail("%d witness updates in one call", len(in.GlobalTableWitnessUpdates))
	}
	var creates, deletes, wCreates, wDeletes []string
	for _, u := range in.ReplicaUpdates {
		switch {
		case u.Create != nil:
			creates = append(creates, aws.ToString(u.Create.RegionName))
		case u.Delete != nil:
			deletes = append(deletes, aws.ToString(u.Delete.RegionName))
		default:
			fail("a replica action other than Create or Delete beside others")
		}
	}
	for _, u := range in.GlobalTableWitnessUpdates {
		switch {
		case u.Create != nil:
			wCreates = append(wCreates, aws.ToString(u.Create.RegionName))
		case u.Delete != nil:
			wDeletes = append(wDeletes, aws.ToString(u.Delete.RegionName))
		}
	}
	slices.Sort(creates)
	slices.Sort(deletes)
	switch {
	case in.MultiRegionConsistency == types.MultiRegionConsistencyStrong:
		switch {
		case c.strong || !c.want.isStrong():
			fail("sets STRONG on a table that is STRONG or whose spec is not")
		case len(c.replicas) > 0 || len(c.witnesses) > 0:
			fail("sets STRONG on a global table: AWS sets it only as the global table is made")
		case len(deletes) > 0 || len(wDeletes) > 0:
			fail("deletes beside STRONG")
		case !(len(creates) == 2 && len(wCreates) == 0) && !(len(creates) == 1 && len(wCreates) == 1):
			fail("Unsupported replica count: %d replicas, %d witnesses", len(creates), len(wCreates))
		case !slices.Equal(creates, slices.Sorted(maps.Keys(c.want.Replicas))) || !slices.Equal(wCreates, slices.Sorted(maps.Keys(c.want.Witnesses))):
			fail("makes replicas %v and witnesses %v, not the spec's", creates, wCreates)
		}
		c.strong = true
		for _, r := range creates {
			c.replicas[r] = "ACTIVE"
		}
		for _, w := range wCreates {
			c.witnesses[w] = true
		}
	case in.MultiRegionConsistency != "":
		fail("sets the consistency to %s", in.MultiRegionConsistency)
	default: // the one way out
		switch {
		case !c.strong || c.want.isStrong():
			fail("deletes several members of a table that is not STRONG, or whose spec is")
		case len(creates) > 0 || len(wCreates) > 0:
			fail("creates a member of a STRONG table")
		case !slices.Equal(deletes, slices.Sorted(maps.Keys(c.replicas))):
			fail("deletes replicas %v of %v: AWS takes all or none", deletes, slices.Sorted(maps.Keys(c.replicas)))
		case !slices.Equal(slices.Sorted(slices.Values(wDeletes)), slices.Sorted(maps.Keys(c.witnesses))):
			fail("does not include all witnesses")
		}
		for _, r := range deletes {
			if !slices.Contains(c.want.RemoveReplicas, r) {
				fail("deletes replica %s, which is not Tether's to remove", r)
			}
		}
		c.strong, c.replicas, c.witnesses = false, map[string]string{}, map[string]bool{}
	}
	return true
}

// applyStrongTable does to the model what AWS does for the consistency and
// the witnesses (the replicas are applyNewerTable's).
func applyStrongTable(tb *Table, in *dynamodb.UpdateTableInput) {
	if in.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
		tb.Consistency = strong
	}
	if len(in.GlobalTableWitnessUpdates) > 0 {
		tb.Witnesses = maps.Clone(tb.Witnesses)
		if tb.Witnesses == nil {
			tb.Witnesses = map[string]string{}
		}
	}
	for _, u := range in.GlobalTableWitnessUpdates {
		switch {
		case u.Create != nil:
			tb.Witnesses[aws.ToString(u.Create.RegionName)] = "ACTIVE"
		case u.Delete != nil:
			delete(tb.Witnesses, aws.ToString(u.Delete.RegionName))
		}
	}
	if in.MultiRegionConsistency == "" && tb.isStrong() && len(in.ReplicaUpdates) > 0 && len(tb.Replicas) == 0 {
		tb.Consistency = "" // the way out: a single-Region table
	}
}

// seeds2026 are inputs long enough for the choices of issue 40's features,
// which come after all the others (MRSC and the Kinesis destination).
func seeds2026() [][]byte {
	var out [][]byte
	for i := range 8 {
		seed := longSeed(uint64(100 + i))
		out = append(out, append(seed, longSeed(uint64(200+i))...))
	}
	return out
}

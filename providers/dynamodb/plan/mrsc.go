package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Multi-Region strong consistency (MRSC) global tables and their witness
// (API UpdateTable MultiRegionConsistency and GlobalTableWitnessUpdates;
// developerguide V2globaltables_HowItWorks.html). AWS's ways, as ACK's
// live probes found them (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md, findings DDB-TABLE-257, -258,
// -260 and -202):
//   - AWS makes a STRONG global table one way only: a single-Region table,
//     empty and ACTIVE, then ONE UpdateTable with MultiRegionConsistency
//     STRONG and either two ReplicaUpdates Create or one Create and one
//     GlobalTableWitnessUpdates Create. One replica alone is refused
//     ("Unsupported replica count"), two creates pass only with STRONG,
//     and "Requests that modify replicas or witnesses must not also modify
//     other fields": the step carries nothing else;
//   - it is frozen afterwards: adding a replica, deleting one, changing
//     the consistency and a DeleteTable of one member are refused. The one
//     way out is one UpdateTable that deletes every replica and the
//     witness: the table is then a single-Region table again;
//   - the replicas and the witness may be missing from DescribeTable for
//     the first seconds (5 to 32 s observed): waited for (Pending), not
//     drift, and the table is Ready only once every replica and the
//     witness are ACTIVE.
// GlobalTableSettingsReplicationMode, which AWS reports on a global table
// (ENABLED_WITH_OVERRIDES) and not on a regional one, is not desired for a
// strongly consistent table: only a multi-account source desires it
// (multiaccount.go), and ENABLED_WITH_OVERRIDES counts as enabled there,
// not as drift.
// The replicas keep their own file (replicas.go): it adds, changes and
// removes replicas of an eventually consistent table, and only changes the
// settings of a strongly consistent one's.

// Kinds of the MRSC steps.
const (
	StepCreateStrong StepKind = "CreateStrongGlobalTable"
	StepLeaveStrong  StepKind = "LeaveStrongGlobalTable"
)

// ReasonStrongRefused is the reason of a plan blocked because AWS would
// refuse what the spec asks of a strongly consistent global table.
const ReasonStrongRefused = "MultiRegionConsistencyRefused"

const strong = string(types.MultiRegionConsistencyStrong)

// witnessInFlux are the witness statuses of AWS still at work
// (API GlobalTableWitnessDescription).
var witnessInFlux = []types.WitnessStatus{types.WitnessStatusCreating, types.WitnessStatusDeleting}

func init() {
	register(&feature{
		kinds: []StepKind{StepCreateStrong, StepLeaveStrong},
		desire: func(s source, want *Table) {
			if s.MultiRegionConsistency != awsv1alpha1.MultiRegionConsistencyStrong {
				return
			}
			want.Consistency, want.Witnesses = strong, map[string]string{}
			if w := s.GlobalTableWitness; w != nil {
				want.Witnesses[w.RegionName] = string(types.WitnessStatusActive)
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			// AWS echoes only STRONG; EVENTUAL is the absence of it.
			if d.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
				have.Consistency = strong
			}
			have.Witnesses = map[string]string{}
			for _, w := range d.GlobalTableWitnesses {
				have.Witnesses[aws.ToString(w.RegionName)] = string(w.WitnessStatus)
			}
		},
		busy:   func(have *Table) string { return witnessBusy(have.Witnesses) },
		passes: []pass{{atLeaveStrong, (*planner).leaveStrong}, {atCreateStrong, (*planner).createStrong}},
	})
}

// isStrong says whether a table is (or is to be) a strongly consistent
// global table.
func (t *Table) isStrong() bool { return t.Consistency == strong }

func witnessBusy(ws map[string]string) string {
	for _, region := range slices.Sorted(maps.Keys(ws)) {
		if slices.Contains(witnessInFlux, types.WitnessStatus(ws[region])) {
			return fmt.Sprintf("witness %s is %s", region, ws[region])
		}
	}
	return ""
}

// createStrong makes the spec's strongly consistent global table of a
// single-Region one: one UpdateTable with the consistency, every replica
// and the witness, and nothing else. A table that is a global table of
// eventual consistency already cannot become one: the plan is blocked.
func (p *planner) createStrong() {
	if !p.want.isStrong() || p.cur.isStrong() || p.cur.Replicas == nil || p.cur.Witnesses == nil {
		return
	}
	if len(p.cur.Replicas) > 0 || len(p.cur.Witnesses) > 0 {
		p.block(ReasonStrongRefused, fmt.Sprintf("the table is a global table of eventual consistency already (replicas %s): "+
			"AWS makes a STRONG one only of a single-Region table; remove its replicas first", strings.Join(slices.Sorted(maps.Keys(p.cur.Replicas)), ", ")))
		return
	}
	in := p.updateTable()
	in.MultiRegionConsistency = types.MultiRegionConsistencyStrong
	regions := slices.Sorted(maps.Keys(p.want.Replicas))
	for _, region := range regions {
		in.ReplicaUpdates = append(in.ReplicaUpdates, types.ReplicationGroupUpdate{Create: createReplicaAction(region, p.want.Replicas[region])})
	}
	desc := "make the table a strongly consistent global table with replicas " + strings.Join(regions, ", ")
	for _, region := range slices.Sorted(maps.Keys(p.want.Witnesses)) {
		in.GlobalTableWitnessUpdates = append(in.GlobalTableWitnessUpdates, types.GlobalTableWitnessGroupUpdate{
			Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(region)}})
		desc += " and witness " + region
	}
	p.add(Step{Kind: StepCreateStrong, Description: desc, Table: in})
	p.cur.Consistency = strong
	p.cur.Replicas, p.cur.Witnesses = map[string]Replica{}, maps.Clone(p.want.Witnesses)
	for _, region := range regions {
		r := p.want.Replicas[region]
		r.Status = string(types.ReplicaStatusActive)
		p.cur.Replicas[region] = r
	}
}

// leaveStrong takes the one way out of a strongly consistent global table
// the spec no longer asks for, where every replica is one Tether may
// remove: one UpdateTable that deletes every replica and the witness. With
// some replicas Tether's and others not, nothing is sent: AWS would refuse
// a part, and the others are not Tether's to remove.
func (p *planner) leaveStrong() {
	if !p.cur.isStrong() || p.want.isStrong() || len(p.want.Replicas) > 0 || p.cur.Replicas == nil {
		return
	}
	regions := slices.Sorted(maps.Keys(p.cur.Replicas))
	var ours []string
	for _, region := range regions {
		if slices.Contains(p.want.RemoveReplicas, region) {
			ours = append(ours, region)
		}
	}
	switch {
	case len(ours) == 0:
		return // none of Tether's: left alone
	case len(ours) < len(regions):
		p.block(ReasonStrongRefused, fmt.Sprintf("the spec removes replicas %s of a strongly consistent global table, which AWS "+
			"removes only all together, and replicas %s are not Tether's to remove", strings.Join(ours, ", "),
			strings.Join(slices.DeleteFunc(slices.Clone(regions), func(r string) bool { return slices.Contains(ours, r) }), ", ")))
		return
	case ReplicasBusy(p.cur.Replicas) != "" || witnessBusy(p.cur.Witnesses) != "":
		return // AWS is at work: the busy gate holds every step
	}
	p.add(LeaveStrongStep(p.name, regions, slices.Sorted(maps.Keys(p.cur.Witnesses))))
	p.cur.Consistency, p.cur.Replicas, p.cur.Witnesses = "", map[string]Replica{}, map[string]string{}
}

// LeaveStrongStep is the one UpdateTable that deletes every replica and
// witness of a strongly consistent global table, and nothing else; the
// adapter sends it before deleting such a table too.
func LeaveStrongStep(table string, replicas, witnesses []string) Step {
	in := updateTableOf(table)
	for _, region := range replicas {
		in.ReplicaUpdates = append(in.ReplicaUpdates, types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(region)}})
	}
	desc := "remove every replica (" + strings.Join(replicas, ", ") + ")"
	for _, region := range witnesses {
		in.GlobalTableWitnessUpdates = append(in.GlobalTableWitnessUpdates, types.GlobalTableWitnessGroupUpdate{
			Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String(region)}})
		desc += " and witness " + region
	}
	return Step{Kind: StepLeaveStrong, Description: desc + " of the strongly consistent global table, leaving a single-Region table", Table: in}
}

// StrongNotListed names the spec's replicas and witness a strongly
// consistent global table does not list yet: AWS leaves them out of
// DescribeTable for the first seconds, which is waiting, not drift. ""
// when every one is listed.
func StrongNotListed(want, have *Table) string {
	if !want.isStrong() || !have.isStrong() || have.Replicas == nil || have.Witnesses == nil {
		return ""
	}
	var out []string
	for _, region := range slices.Sorted(maps.Keys(want.Replicas)) {
		if _, ok := have.Replicas[region]; !ok {
			out = append(out, "replica "+region)
		}
	}
	for _, region := range slices.Sorted(maps.Keys(want.Witnesses)) {
		if _, ok := have.Witnesses[region]; !ok {
			out = append(out, "witness "+region)
		}
	}
	return strings.Join(out, ", ")
}

func updateTableOf(table string) *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: aws.String(table)}
}

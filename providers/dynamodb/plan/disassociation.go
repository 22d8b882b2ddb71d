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

// Replica disassociation and disassociation protection (AWS since October
// 2026, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html):
// a replica of a multi-Region eventual consistency global table may leave
// it and stay a table of its own in its Region. AWS's rules
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html):
//   - the Disassociate action goes to the replica's own Region, with the
//     credentials of the account that owns it, its RegionName that Region
//     and its DisassociationMode WAIT_FOR_REPLICATION; it is the only
//     update of its call (the step carries Region, and the adapter sends
//     it there);
//   - a replica's disassociation protection is on by default and AWS
//     refuses while it is on; a protection change is alone in its call and
//     goes to the Region of the replica it protects: the spec declares the
//     table's own (a replica of its global table like the others);
//   - a disassociation is done when the global table no longer lists the
//     replica; meanwhile the replica is not ACTIVE, so nothing else is
//     sent (the busy gate), and a late read is a step in flight, not one to
//     send again (the adapter's inflight.go).
//
// A replica the spec drops is disassociated, rather than deleted, when
// spec.disassociateReplicas names it; which replicas Tether may remove at
// all (RemoveReplicas) is the adapter's record, not the status. A
// disassociation AWS refused is not planned again for the same spec
// (DisassociationRefused): the plan is blocked, saying why, and the
// replica is neither disassociated nor deleted.

// FeatureDisassociation names replica disassociation and its protection
// where an endpoint may lack them (DynamoDB Local answers "Nothing to
// update").
const FeatureDisassociation = "replicaDisassociation"

// Kinds of the disassociation's steps.
const (
	StepDisassociateReplica      StepKind = "DisassociateReplica"
	stepDisassociationProtection StepKind = "DisassociationProtection"
)

// ReasonDisassociationRefused is the reason of a plan blocked by a
// disassociation AWS refused, or one that cannot start (the replica is not
// ACTIVE).
const ReasonDisassociationRefused = "ReplicaDisassociationRefused"

func init() {
	register(&feature{
		name:  FeatureDisassociation,
		kinds: []StepKind{StepDisassociateReplica, stepDisassociationProtection},
		uses: func(spec *awsv1alpha1.DynamoDBTableSpec) bool {
			return len(spec.DisassociateReplicas) > 0 || spec.DisassociationProtectionEnabled != nil
		},
		desire: func(s source, want *Table) {
			want.DisassociationProtection = s.DisassociationProtectionEnabled
			for _, d := range s.DisassociateReplicas {
				if want.Disassociate == nil {
					want.Disassociate = map[string]string{}
				}
				want.Disassociate[d.RegionName] = orDefault(d.DisassociationMode, awsv1alpha1.DisassociationModeWaitForReplication)
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			// "Disassociation protection is enabled by default" (API
			// UpdateTable): a global table that does not say is protected.
			switch {
			case d.DisassociationProtectionEnabled != nil:
				have.DisassociationProtection = aws.Bool(*d.DisassociationProtectionEnabled)
			case len(d.Replicas) > 0:
				have.DisassociationProtection = aws.Bool(true)
			}
		},
		hide:   func(have *Table) { have.DisassociationProtection = nil },
		passes: []pass{{atDisassociateReplicas, (*planner).disassociateReplicas}, {atDisassociationProtection, (*planner).updateDisassociationProtection}},
	})
}

// disassociateReplicas disassociates, one per call and before any delete,
// the replicas Tether may remove that the spec dropped and asks to keep.
// Each is taken out of the simulated table, so the delete pass after it
// never deletes one of them, whether it is sent, refused or waiting.
func (p *planner) disassociateReplicas() {
	// AWS disassociates replicas of eventually consistent global tables
	// only.
	if p.cur.Replicas == nil || len(p.want.Disassociate) == 0 || p.cur.isStrong() {
		return
	}
	var blocked []string
	for _, region := range slices.Sorted(slices.Values(p.want.RemoveReplicas)) {
		mode, keep := p.want.Disassociate[region]
		_, wanted := p.want.Replicas[region]
		have, ok := p.cur.Replicas[region]
		if !keep || wanted || !ok {
			continue
		}
		p.cur.Replicas = maps.Clone(p.cur.Replicas)
		delete(p.cur.Replicas, region)
		switch {
		case p.want.DisassociationRefused[region] != "":
			blocked = append(blocked, fmt.Sprintf("AWS refused to disassociate replica %s (%s): not sent again, nor deleted, until the spec changes",
				region, p.want.DisassociationRefused[region]))
		case slices.Contains(replicaInFlux, types.ReplicaStatus(have.Status)):
			// AWS is still changing it: the busy gate holds every step.
		case have.Status != string(types.ReplicaStatusActive):
			blocked = append(blocked, fmt.Sprintf("replica %s is %s, so it cannot be disassociated (nor is it deleted) until it is ACTIVE", region, have.Status))
		default:
			in := p.updateTable()
			in.ReplicaUpdates = []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
				RegionName: aws.String(region), DisassociationMode: types.DisassociationMode(mode)}}}
			p.add(Step{Kind: StepDisassociateReplica, Region: region, Table: in,
				Description: "disassociate replica " + region + " (it stays a table of its own there)"})
		}
	}
	if len(blocked) > 0 {
		p.block(ReasonDisassociationRefused, strings.Join(blocked, "; "))
	}
}

// updateDisassociationProtection sets the table's own protection, alone in
// its call, while it is a global table (after the replica steps planned
// before it).
func (p *planner) updateDisassociationProtection() {
	w := p.want.DisassociationProtection
	if w == nil || len(p.cur.Replicas) == 0 || p.cur.isStrong() || (p.cur.DisassociationProtection != nil && *p.cur.DisassociationProtection == *w) {
		return
	}
	in := p.updateTable()
	in.DisassociationProtectionEnabled = aws.Bool(*w)
	p.add(Step{Kind: stepDisassociationProtection, Description: onOff(*w) + " disassociation protection", Table: in})
	p.cur.DisassociationProtection = aws.Bool(*w)
}

package plan

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestDisassociationSteps: a replica the spec drops is disassociated, in
// its own Region, when the spec keeps it, else deleted as before; one
// Tether may not remove is neither; a refused disassociation, or a replica
// that is not ACTIVE, blocks the plan with the reason named and is not
// deleted instead; the table's protection is set alone, only on a global
// table.
func TestDisassociationSteps(t *testing.T) {
	const eu, ap = "eu-west-1", "ap-south-1"
	keepEU := map[string]string{eu: "WAIT_FOR_REPLICATION"}
	activeIn := func(regions ...string) map[string]Replica {
		out := map[string]Replica{}
		for _, r := range regions {
			out[r] = Replica{Status: "ACTIVE"}
		}
		return out
	}
	cases := []struct {
		name       string
		keep       map[string]string
		remove     []string
		refused    map[string]string
		have       map[string]Replica
		protection *bool
		steps      []string
		region     string
		blocked    bool
	}{
		{name: "dropped and kept: disassociated", keep: keepEU, remove: []string{eu}, have: activeIn(eu, ap),
			steps: []string{"disassociate replica eu-west-1 (it stays a table of its own there)"}, region: eu},
		{name: "dropped, not kept: deleted", remove: []string{eu}, have: activeIn(eu, ap), steps: []string{"remove replica eu-west-1"}},
		{name: "kept but not Tether's: left alone", keep: keepEU, have: activeIn(eu, ap)},
		{name: "refused: blocked, not deleted", keep: keepEU, remove: []string{eu}, refused: map[string]string{eu: "protected"},
			have: activeIn(eu, ap), blocked: true},
		{name: "not ACTIVE: blocked, not deleted", keep: keepEU, remove: []string{eu},
			have: map[string]Replica{eu: {Status: "REGION_DISABLED"}, ap: {Status: "ACTIVE"}}, blocked: true},
		{name: "protection off on a global table", have: activeIn(ap), protection: aws.Bool(false),
			steps: []string{"disable disassociation protection"}},
		{name: "protection on already (AWS's default)", have: activeIn(ap), protection: aws.Bool(true)},
		{name: "last replica disassociated: no protection step after it", keep: keepEU, remove: []string{eu}, have: activeIn(eu),
			protection: aws.Bool(false), steps: []string{"disassociate replica eu-west-1 (it stays a table of its own there)"}, region: eu},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := with(spec(ppr, nil), func(tb *Table) {
				tb.Replicas, tb.Stream = map[string]Replica{}, "NEW_AND_OLD_IMAGES"
				if _, ok := c.have[ap]; ok {
					tb.Replicas[ap] = Replica{}
				}
				tb.RemoveReplicas, tb.Disassociate, tb.DisassociationRefused = c.remove, c.keep, c.refused
				tb.DisassociationProtection = c.protection
			})
			have := with(active(ppr, nil), func(tb *Table) {
				tb.Replicas, tb.Stream = c.have, "NEW_AND_OLD_IMAGES"
				tb.DisassociationProtection = aws.Bool(true)
			})
			p := Compute("t", want, have, Options{})
			if got := p.Descriptions(); !slices.Equal(got, c.steps) {
				t.Fatalf("steps %q, want %q", got, c.steps)
			}
			if c.region != "" && p.Steps[0].Region != c.region {
				t.Errorf("sent to %q, want the replica's Region %s", p.Steps[0].Region, c.region)
			}
			if c.blocked != (p.Blocked != "") || (c.blocked && p.BlockedReason != ReasonDisassociationRefused) {
				t.Errorf("blocked %q (%s), want blocked=%v", p.Blocked, p.BlockedReason, c.blocked)
			}
			for _, s := range p.Steps {
				if s.Table != nil && s.Table.DisassociationProtectionEnabled != nil && len(s.Table.ReplicaUpdates) > 0 {
					t.Errorf("protection combined with a replica update")
				}
			}
		})
	}
}

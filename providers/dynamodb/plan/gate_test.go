package plan

import "testing"

func TestStepGate(t *testing.T) {
	createIndex := Step{Kind: StepCreateIndex}
	ttl := Step{Kind: StepTimeToLive}
	for _, tc := range []struct {
		name            string
		table           *Table
		forIndex, other string
	}{
		{"idle", &Table{Status: "ACTIVE"}, "", ""},
		{"table updating", &Table{Status: "UPDATING"}, "table is UPDATING", "table is UPDATING"},
		{"index allocated", &Table{Status: "ACTIVE", GSIs: []Index{{Name: "a", Status: "CREATING"}}}, "index a is CREATING", "index a is CREATING"},
		{"index backfilling", &Table{Status: "ACTIVE", GSIs: []Index{{Name: "a", Status: "CREATING", Backfilling: true}}}, "index a is backfilling", ""},
		{"index deleting", &Table{Status: "ACTIVE", GSIs: []Index{{Name: "a", Status: "DELETING"}}}, "index a is DELETING", "index a is DELETING"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := tc.table.gate()
			if got := gate.holds(createIndex); got != tc.forIndex {
				t.Errorf("index step held by %q, want %q", got, tc.forIndex)
			}
			if got := gate.holds(ttl); got != tc.other {
				t.Errorf("other step held by %q, want %q", got, tc.other)
			}
		})
	}
}

package plan

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestInsightsSteps: the step for the table's contributor insights, for
// each state AWS may report; every ENABLE names its mode, and a change AWS
// is still applying holds the table (not Ready, nothing sent).
func TestInsightsSteps(t *testing.T) {
	const throttled, both = "THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"
	cases := []struct {
		name     string
		want     *Insights
		have     *Insights
		step     string // "" for none
		mode     string // the mode the ENABLE carries
		busy     bool
		failHint string
	}{
		{name: "off, asked on", want: &Insights{Enabled: true}, have: &Insights{Status: "DISABLED"},
			step: "enable contributor insights (ACCESSED_AND_THROTTLED_KEYS) on the table", mode: both},
		{name: "off, asked on in a mode", want: &Insights{Enabled: true, Mode: throttled}, have: &Insights{Status: "DISABLED"},
			step: "enable contributor insights (THROTTLED_KEYS) on the table", mode: throttled},
		{name: "on, mode changed", want: &Insights{Enabled: true, Mode: both}, have: &Insights{Status: "ENABLED", Mode: throttled},
			step: "enable contributor insights (ACCESSED_AND_THROTTLED_KEYS) on the table", mode: both},
		{name: "on, mode left alone", want: &Insights{Enabled: true}, have: &Insights{Status: "ENABLED", Mode: throttled}},
		{name: "on in the mode asked", want: &Insights{Enabled: true, Mode: throttled}, have: &Insights{Status: "ENABLED", Mode: throttled}},
		{name: "enabling counts as on, and holds", want: &Insights{Enabled: true, Mode: throttled}, have: &Insights{Status: "ENABLING", Mode: throttled}, busy: true},
		{name: "disabling counts as off, and holds", want: &Insights{Enabled: false}, have: &Insights{Status: "DISABLING"}, busy: true},
		{name: "on, asked off", want: &Insights{Enabled: false}, have: &Insights{Status: "ENABLED", Mode: both},
			step: "disable contributor insights on the table"},
		{name: "failed, keeps the mode it had, says why", want: &Insights{Enabled: true}, have: &Insights{Status: "FAILED", Mode: throttled, Failure: "LimitExceededException: too many rules"},
			step: "enable contributor insights (THROTTLED_KEYS) on the table again: AWS reports them FAILED (LimitExceededException: too many rules)", mode: throttled},
		{name: "failed, asked off: nothing to do", want: &Insights{Enabled: false}, have: &Insights{Status: "FAILED"}},
		{name: "not managed", want: nil, have: &Insights{Status: "ENABLING"}, busy: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := with(spec(ppr, nil), func(tb *Table) { tb.Insights = c.want })
			have := with(active(ppr, nil), func(tb *Table) { tb.Insights = c.have })
			p := Compute("t", want, have, Options{})
			var got string
			if len(p.Steps) > 0 {
				got = p.Steps[0].Description
			}
			if got != c.step || len(p.Steps) > 1 {
				t.Fatalf("steps %q, want [%q]", p.Descriptions(), c.step)
			}
			if c.mode != "" && string(p.Steps[0].Insights.ContributorInsightsMode) != c.mode {
				t.Errorf("ENABLE carries mode %q, want %q", p.Steps[0].Insights.ContributorInsightsMode, c.mode)
			}
			if busy := p.Busy() != ""; busy != c.busy {
				t.Errorf("busy = %q, want busy %v", p.Busy(), c.busy)
			}
		})
	}
}

// TestInsightsOfAnIndexHoldTheTable: an index's insights AWS is still
// turning on hold every step, and say which index.
func TestInsightsOfAnIndexHoldTheTable(t *testing.T) {
	ix := gsi("byCustomer", "customer", nil)
	ix.Insights = &Insights{Status: "ENABLING", Mode: "THROTTLED_KEYS"}
	have := active(ppr, nil, ix)
	want := with(spec(ppr, nil, gsi("byCustomer", "customer", nil)), func(tb *Table) { tb.DeletionProtection = aws.Bool(true) })
	p := Compute("t", want, have, Options{})
	if len(p.Steps) != 1 || p.Holds(p.Steps[0]) != "contributor insights on index byCustomer are ENABLING" {
		t.Fatalf("steps %q held by %q", p.Descriptions(), p.Busy())
	}
	if !InsightsInFlux(map[string]*Insights{"byCustomer": ix.Insights}) || InsightsInFlux(map[string]*Insights{"": {Status: "FAILED"}}) {
		t.Error("InsightsInFlux: ENABLING is in flux, FAILED is not")
	}
}

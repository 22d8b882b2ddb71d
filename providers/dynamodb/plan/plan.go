package plan

import "strings"

// Compute plans the steps that take have to want. It is pure: it reads
// nothing and calls nothing. The planner simulates each step on a copy of
// have, so that later steps are planned against the table as the earlier
// ones leave it, running the features' passes in their order (passes.go).
func Compute(tableName string, want, have *Table, opts Options) *Plan {
	p := &planner{name: tableName, want: want, cur: have.clone(), opts: opts}
	for _, run := range passAt {
		run(p)
	}
	return &Plan{Steps: p.steps, Blocked: p.blocked, BlockedReason: p.blockedReason, busy: have.busy(), gate: have.gate()}
}

// Plan is the ordered list of steps from what AWS reports to the spec. Only
// the first step is ever sent: the plan is computed again from a fresh
// DescribeTable before the next one, so every step sent is legal for the
// table as it is then.
type Plan struct {
	Steps []Step
	// Blocked explains a change the adapter will not make on its own (an
	// index replacement without the annotation); "" when there is none.
	Blocked string
	// BlockedReason is the condition reason of what blocks it, "" for an
	// index replacement.
	BlockedReason string
	// busy is what AWS is still doing to the table ("" when idle): the
	// table is not Ready until it is done. gate is what of it holds which
	// steps.
	busy string
	gate stepGate
}

// String is the pending plan in one line, for conditions and events: the
// step sent next, then the ones after it.
func (p *Plan) String() string {
	var b strings.Builder
	if len(p.Steps) > 0 {
		b.WriteString(p.Steps[0].Description)
	}
	if len(p.Steps) > 1 {
		b.WriteString(" (then: " + strings.Join(p.Descriptions()[1:], "; ") + ")")
	}
	if p.Blocked != "" {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("blocked: " + p.Blocked)
	}
	return b.String()
}

// StallKey is the step sent next: the generic stall breaker counts how often
// the same step was sent for a generation with the table never showing it,
// whatever the steps after it say.
func (p *Plan) StallKey() string {
	if len(p.Steps) > 0 {
		return p.Steps[0].Description
	}
	return p.String()
}

// Descriptions lists the steps, for status.pendingPlan.
func (p *Plan) Descriptions() []string {
	out := make([]string, 0, len(p.Steps))
	for _, s := range p.Steps {
		out = append(out, s.Description)
	}
	return out
}

// Empty says whether the table matches the spec.
func (p *Plan) Empty() bool { return len(p.Steps) == 0 && p.Blocked == "" }

// Busy is what AWS is still doing to the table, "" when it is idle. No
// UpdateTable is legal until it is.
func (p *Plan) Busy() string { return p.busy }

// Holds says what the step waits for, "" when it may go now.
func (p *Plan) Holds(step Step) string { return p.gate.holds(step) }

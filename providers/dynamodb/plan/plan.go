package plan

// Compute plans the steps that take have to want. It is pure: it reads
// nothing and calls nothing. The planner simulates each step on a copy of
// have, so that later steps are planned against the table as the earlier
// ones leave it, running the features' passes in their order (passes.go).
func Compute(tableName string, want, have *Table, opts Options) *Plan {
	p := &planner{name: tableName, want: want, cur: have.clone(), opts: opts}
	for _, run := range passAt {
		run(p)
	}
	p.plan.busy, p.plan.gate = have.busy(), have.gate()
	return &p.plan
}

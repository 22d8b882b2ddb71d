package demo

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// planStep is one step of a table's plan as the page ticks it off.
type planStep struct {
	Step string `json:"step"`
	Done bool   `json:"done"`
}

// plans follows each table's pending plan (status.pendingPlan, the steps
// DynamoDB takes one at a time) as a checklist: a step is ticked once it
// leaves the pending plan, and the list stays, all ticked, once the plan is
// done, until a plan for a new generation starts.
type plans struct {
	mu     sync.Mutex
	tables map[types.NamespacedName]*checklist
}

type checklist struct {
	generation int64
	steps      []planStep
}

func newPlans() *plans { return &plans{tables: map[types.NamespacedName]*checklist{}} }

// seen takes a table's status as the informer has it now.
func (p *plans) seen(t *awsv1alpha1.DynamoDBTable) {
	key := types.NamespacedName{Namespace: t.Namespace, Name: t.Name}
	pending := t.Status.PendingPlan
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.tables[key]
	if len(pending) == 0 {
		if c != nil {
			for i := range c.steps {
				c.steps[i].Done = true
			}
		}
		return
	}
	if c == nil || (c.generation != t.Generation && c.done()) {
		c = &checklist{generation: t.Generation}
		p.tables[key] = c
	}
	c.generation = t.Generation
	for i := range c.steps {
		c.steps[i].Done = !slices.Contains(pending, c.steps[i].Step)
	}
	for _, step := range pending {
		if !slices.ContainsFunc(c.steps, func(s planStep) bool { return s.Step == step }) {
			c.steps = append(c.steps, planStep{Step: step})
		}
	}
}

// gone forgets a deleted table's plan.
func (p *plans) gone(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.tables, key)
}

// checklist returns the table's plan, oldest step first; empty when it
// never had one.
func (p *plans) checklist(key types.NamespacedName) []planStep {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.tables[key]; c != nil {
		return append([]planStep{}, c.steps...)
	}
	return []planStep{}
}

func (c *checklist) done() bool {
	for _, s := range c.steps {
		if !s.Done {
			return false
		}
	}
	return true
}

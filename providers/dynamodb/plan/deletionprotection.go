package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Deletion protection: a flag of UpdateTable (the adapter lowers it itself
// before a delete the spec allows, delete.go).

// stepDeletionProtection turns deletion protection on or off.
const stepDeletionProtection StepKind = "DeletionProtection"

func init() {
	register(&feature{
		kinds:  []StepKind{stepDeletionProtection},
		desire: func(s source, want *Table) { want.DeletionProtection = s.DeletionProtectionEnabled },
		observe: func(d *types.TableDescription, have *Table) {
			have.DeletionProtection = aws.Bool(aws.ToBool(d.DeletionProtectionEnabled))
		},
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			in.DeletionProtectionEnabled = s.DeletionProtectionEnabled
		},
		passes: []pass{{atDeletionProtection, (*planner).updateDeletionProtection}},
	})
}

func (p *planner) updateDeletionProtection() {
	if p.want.DeletionProtection == nil || p.cur.DeletionProtection != nil && *p.want.DeletionProtection == *p.cur.DeletionProtection {
		return
	}
	in := p.updateTable()
	in.DeletionProtectionEnabled = p.want.DeletionProtection
	p.add(Step{Kind: stepDeletionProtection, Description: onOff(*p.want.DeletionProtection) + " deletion protection", Table: in})
	p.cur.DeletionProtection = p.want.DeletionProtection
}

package plan

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// The billing mode and the provisioned throughput of the table and its
// indexes. A PAY_PER_REQUEST table has no throughput to manage.

// Kinds of the billing and throughput steps.
const (
	StepSwitchBilling StepKind = "SwitchBilling"
	StepThroughput    StepKind = "Throughput"
)

func init() {
	register(&feature{
		kinds: []StepKind{StepSwitchBilling, StepThroughput},
		desire: func(s source, want *Table) {
			want.BillingMode = orDefault(s.BillingMode, awsv1alpha1.BillingModePayPerRequest)
			if want.BillingMode != awsv1alpha1.BillingModePayPerRequest {
				want.Throughput = specThroughput(s.ProvisionedThroughput)
			}
			if want.BillingMode != awsv1alpha1.BillingModeProvisioned {
				return
			}
			for i, g := range s.GlobalSecondaryIndexes {
				want.GSIs[i].Throughput = specThroughput(g.ProvisionedThroughput)
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			have.BillingMode = awsv1alpha1.BillingModeProvisioned
			// AWS leaves BillingModeSummary out for tables that were always PROVISIONED.
			if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
				have.BillingMode = string(d.BillingModeSummary.BillingMode)
			}
			provisioned := have.BillingMode == awsv1alpha1.BillingModeProvisioned
			if provisioned {
				have.Throughput = awsThroughput(d.ProvisionedThroughput)
			}
			for i, g := range d.GlobalSecondaryIndexes {
				have.GSIs[i].Reported = awsThroughput(g.ProvisionedThroughput)
				if provisioned {
					have.GSIs[i].Throughput = awsThroughput(g.ProvisionedThroughput)
				}
			}
		},
		create: func(_ source, want *Table, in *dynamodb.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = types.BillingMode(want.BillingMode), awsProvisioned(want.Throughput)
		},
		createIndex: func(want Index, in *types.CreateGlobalSecondaryIndexAction) {
			in.ProvisionedThroughput = awsProvisioned(want.Throughput)
		},
		passes: []pass{{atSwitchBilling, (*planner).switchBilling}, {atThroughput, (*planner).updateThroughput}},
	})
}

// switchBilling changes the billing mode. A switch to PROVISIONED must carry
// the throughput of the table and of every index in the same call, except
// an index already reported at that capacity: AWS reports 0 on
// PAY_PER_REQUEST, but DynamoDB Local keeps the old values and rejects
// "the requested throughput value equals the current value".
func (p *planner) switchBilling() {
	if p.want.BillingMode == p.cur.BillingMode {
		return
	}
	in := p.updateTable()
	in.BillingMode = types.BillingMode(p.want.BillingMode)
	desc := "switch billing to " + p.want.BillingMode
	if p.want.BillingMode == awsv1alpha1.BillingModeProvisioned {
		in.ProvisionedThroughput = awsProvisioned(p.want.Throughput)
		p.cur.Throughput = p.want.Throughput
		for i, ix := range p.cur.GSIs {
			want, _ := p.want.index(ix.Name)
			p.cur.GSIs[i].Throughput = want.Throughput
			if ix.Reported != nil && want.Throughput != nil && *ix.Reported == *want.Throughput {
				continue
			}
			in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, types.GlobalSecondaryIndexUpdate{
				Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ix.Name), ProvisionedThroughput: awsProvisioned(want.Throughput)}})
		}
		desc += fmt.Sprintf(" (table %s", p.want.Throughput)
		for _, ix := range p.cur.GSIs {
			desc += fmt.Sprintf(", index %s %s", ix.Name, ix.Throughput)
		}
		desc += ")"
	} else {
		p.cur.Throughput = nil
		for i := range p.cur.GSIs {
			p.cur.GSIs[i].Throughput = nil
		}
	}
	p.cur.BillingMode = p.want.BillingMode
	p.dropOnDemand()
	p.add(Step{Kind: StepSwitchBilling, Description: desc, Table: in})
}

// updateThroughput sends only the capacities that differ: AWS rejects an
// update that "will not change" anything.
func (p *planner) updateThroughput() {
	if p.want.BillingMode != awsv1alpha1.BillingModeProvisioned || p.cur.BillingMode != awsv1alpha1.BillingModeProvisioned {
		return
	}
	in := p.updateTable()
	var parts []string
	if p.want.Throughput != nil && !sameThroughput(p.want.Throughput, p.cur.Throughput) {
		in.ProvisionedThroughput = awsProvisioned(p.want.Throughput)
		parts = append(parts, "table "+p.want.Throughput.String())
		p.cur.Throughput = p.want.Throughput
	}
	p.keptIndexes(func(i int, want, ix Index) {
		if want.Throughput == nil || sameThroughput(want.Throughput, ix.Throughput) {
			return
		}
		in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, types.GlobalSecondaryIndexUpdate{
			Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ix.Name), ProvisionedThroughput: awsProvisioned(want.Throughput)}})
		parts = append(parts, fmt.Sprintf("index %s %s", ix.Name, want.Throughput))
		p.cur.GSIs[i].Throughput = want.Throughput
	})
	if len(parts) > 0 {
		p.add(Step{Kind: StepThroughput, Description: "set throughput " + strings.Join(parts, ", "), Table: in})
	}
}

func specThroughput(p *awsv1alpha1.ProvisionedThroughput) *Throughput {
	if p == nil {
		return nil
	}
	return &Throughput{Read: p.ReadCapacityUnits, Write: p.WriteCapacityUnits}
}

func awsThroughput(p *types.ProvisionedThroughputDescription) *Throughput {
	if p == nil {
		return &Throughput{}
	}
	return &Throughput{Read: aws.ToInt64(p.ReadCapacityUnits), Write: aws.ToInt64(p.WriteCapacityUnits)}
}

func awsProvisioned(t *Throughput) *types.ProvisionedThroughput {
	if t == nil {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.Read), WriteCapacityUnits: aws.Int64(t.Write)}
}

func sameThroughput(a, b *Throughput) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

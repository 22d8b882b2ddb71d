package plan

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTableOrIndexSteps: on-demand and warm throughput are sent to the
// table and to each index by a call each, with the description users see in
// events and the value in the field of that name of UpdateTable or of the
// index update; each feature's own rules decide what is sent.
func TestTableOrIndexSteps(t *testing.T) {
	caps := func(read, write int64) *OnDemand { return &OnDemand{Read: aws.Int64(read), Write: aws.Int64(write)} }
	warm := func(read, write int64, status string) *Warm {
		return &Warm{Read: aws.Int64(read), Write: aws.Int64(write), Status: status}
	}
	onTable := func(f func(*dynamodb.UpdateTableInput)) *dynamodb.UpdateTableInput {
		in := &dynamodb.UpdateTableInput{TableName: aws.String("t")}
		f(in)
		return in
	}
	onIndex := func(u types.UpdateGlobalSecondaryIndexAction) *dynamodb.UpdateTableInput {
		u.IndexName = aws.String("byC")
		return &dynamodb.UpdateTableInput{TableName: aws.String("t"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &u}}}
	}
	type set func(tb *Table, ix *Index)
	cases := []struct {
		name       string
		billing    string
		want, have set
		steps      []Step
	}{
		{name: "caps: a cap set, a cap lifted", billing: ppr,
			want: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(100, 0), caps(0, 50) },
			have: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(0, 0), caps(50, 50) },
			steps: []Step{
				{Kind: StepOnDemand, Description: "limit table requests: reads at most 100/s", Table: onTable(func(in *dynamodb.UpdateTableInput) {
					in.OnDemandThroughput = &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}
				})},
				{Kind: StepIndexOnDemand, Description: "limit index byC requests: no limit on reads", Table: onIndex(types.UpdateGlobalSecondaryIndexAction{
					OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(-1)}})},
			}},
		{name: "caps: in sync", billing: ppr,
			want: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(100, 0), caps(0, 50) },
			have: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(100, 0), caps(0, 50) }},
		{name: "caps: none on a provisioned table", billing: prov,
			want: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(100, 0), caps(0, 50) },
			have: func(tb *Table, ix *Index) { tb.OnDemand, ix.OnDemand = caps(0, 0), caps(50, 50) }},
		{name: "warm: raised, never lowered", billing: ppr,
			want: func(tb *Table, ix *Index) { tb.Warm, ix.Warm = warm(4000, 500, ""), warm(2000, 3000, "") },
			have: func(tb *Table, ix *Index) { tb.Warm, ix.Warm = warm(1000, 1000, "ACTIVE"), warm(1000, 1000, "ACTIVE") },
			steps: []Step{
				{Kind: StepWarm, Description: "raise table warm throughput to 4000 reads/s", Table: onTable(func(in *dynamodb.UpdateTableInput) {
					in.WarmThroughput = &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(4000)}
				})},
				{Kind: StepIndexWarm, Description: "raise index byC warm throughput to 2000 reads/s, 3000 writes/s", Table: onIndex(types.UpdateGlobalSecondaryIndexAction{
					WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(2000), WriteUnitsPerSecond: aws.Int64(3000)}})},
			}},
		{name: "warm: not sent again while UPDATING", billing: ppr,
			want: func(tb *Table, ix *Index) { tb.Warm, ix.Warm = warm(4000, 500, ""), warm(2000, 3000, "") },
			have: func(tb *Table, ix *Index) {
				tb.Warm, ix.Warm = warm(4000, 1000, "ACTIVE"), warm(1000, 1000, "UPDATING")
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var throughput *Throughput
			if c.billing == prov {
				throughput = tp(5, 5)
			}
			want := spec(c.billing, throughput, gsi("byC", "c", throughput))
			have := active(c.billing, throughput, gsi("byC", "c", throughput))
			c.want(want, &want.GSIs[0])
			c.have(have, &have.GSIs[0])
			p := Compute("t", want, have, Options{})
			if (len(p.Steps) > 0 || len(c.steps) > 0) && !reflect.DeepEqual(p.Steps, c.steps) {
				t.Fatalf("steps %q, want %q", p.Descriptions(), (&Plan{Steps: c.steps}).Descriptions())
			}
		})
	}
}

package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Observed normalises DescribeTable's answer. What the features read with
// calls of their own (TTL, backups, tags, ...) the adapter adds (Adopt),
// only when the spec uses them.
func Observed(d *types.TableDescription) *Table {
	t := &Table{Status: string(d.TableStatus)}
	for _, g := range d.GlobalSecondaryIndexes {
		t.GSIs = append(t.GSIs, Index{Name: aws.ToString(g.IndexName), Status: string(g.IndexStatus), Backfilling: aws.ToBool(g.Backfilling)})
	}
	for _, f := range features {
		if f.observe != nil {
			f.observe(d, t)
		}
	}
	return t
}

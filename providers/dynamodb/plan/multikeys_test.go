package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// multiIndex is an index keyed by tenant and region, then day and seq.
func multiIndex(order ...string) awsv1alpha1.GlobalSecondaryIndex {
	g := awsv1alpha1.GlobalSecondaryIndex{IndexName: "byTenant", Projection: awsv1alpha1.Projection{ProjectionType: "ALL"}}
	for _, a := range order {
		kt := "HASH"
		if a == "day" || a == "seq" {
			kt = "RANGE"
		}
		g.KeySchema = append(g.KeySchema, awsv1alpha1.KeySchemaElement{AttributeName: a, KeyType: kt})
	}
	return g
}

func multiSpec(g awsv1alpha1.GlobalSecondaryIndex) *awsv1alpha1.DynamoDBTableSpec {
	s := &awsv1alpha1.DynamoDBTableSpec{KeySchema: awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		BillingMode: awsv1alpha1.BillingModePayPerRequest, GlobalSecondaryIndexes: []awsv1alpha1.GlobalSecondaryIndex{g},
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}
	for _, k := range g.KeySchema {
		typ := "S"
		if k.KeyType == "RANGE" {
			typ = "N"
		}
		s.AttributeDefinitions = append(s.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: k.AttributeName, AttributeType: typ})
	}
	return s
}

// described is the table DynamoDB describes after creating spec, its index
// keys in the order they were created (as DynamoDB keeps them).
func described(spec *awsv1alpha1.DynamoDBTableSpec) *types.TableDescription {
	in := CreateTableInput("t", spec, nil)
	d := &types.TableDescription{TableName: aws.String("t"), TableStatus: types.TableStatusActive, KeySchema: in.KeySchema,
		AttributeDefinitions: in.AttributeDefinitions, BillingModeSummary: &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest}}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{IndexName: g.IndexName,
			KeySchema: g.KeySchema, Projection: g.Projection, IndexStatus: types.IndexStatusActive})
	}
	return d
}

func keyNames(ks []types.KeySchemaElement) string {
	var out []string
	for _, k := range ks {
		out = append(out, aws.ToString(k.AttributeName)+"/"+string(k.KeyType))
	}
	return strings.Join(out, " ")
}

// TestMultiAttributeIndexKeys: an index keyed by several HASH and RANGE
// attributes is created with its keys in the spec's order and every
// attribute defined; read back in that order it is in sync; the same
// attributes in another order are another index, replaced only with the
// annotation.
func TestMultiAttributeIndexKeys(t *testing.T) {
	spec := multiSpec(multiIndex("tenant", "region", "day", "seq"))
	in := CreateTableInput("t", spec, nil)
	if got := keyNames(in.GlobalSecondaryIndexes[0].KeySchema); got != "tenant/HASH region/HASH day/RANGE seq/RANGE" {
		t.Fatalf("CreateTable index keys %q", got)
	}
	if len(in.AttributeDefinitions) != 5 {
		t.Fatalf("attribute definitions %v", in.AttributeDefinitions)
	}
	have := Observed(described(spec))
	if p := Compute("t", Desired(spec, nil), have, Options{}); !p.Empty() {
		t.Fatalf("a table created from the spec differs from it: %v", p)
	}

	cases := []struct {
		name    string
		order   []string
		allow   bool
		blocked string
		steps   []string
	}{
		{"HASH order changed", []string{"region", "tenant", "day", "seq"}, false, "byTenant changed its key schema", nil},
		{"RANGE order changed", []string{"tenant", "region", "seq", "day"}, false, "byTenant changed its key schema", nil},
		{"a RANGE attribute dropped", []string{"tenant", "region", "day"}, false, "byTenant changed its key schema", nil},
		{"order changed, replacement allowed", []string{"region", "tenant", "day", "seq"}, true, "",
			[]string{"delete index byTenant to re-create it with a new key schema", "create index byTenant"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Compute("t", Desired(multiSpec(multiIndex(c.order...)), nil), have, Options{AllowIndexReplacement: c.allow})
			if !strings.Contains(p.Blocked, c.blocked) || (c.blocked == "") != (p.Blocked == "") {
				t.Errorf("blocked %q, want %q", p.Blocked, c.blocked)
			}
			if !slices.Equal(p.Descriptions(), c.steps) {
				t.Fatalf("steps %q, want %q", p.Descriptions(), c.steps)
			}
			if c.allow {
				create := p.Steps[1].Table
				if got := keyNames(create.GlobalSecondaryIndexUpdates[0].Create.KeySchema); got != "region/HASH tenant/HASH day/RANGE seq/RANGE" {
					t.Errorf("re-created with keys %q", got)
				}
				if len(create.AttributeDefinitions) != 4 {
					t.Errorf("re-created with definitions %v", create.AttributeDefinitions)
				}
			}
		})
	}
}

package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// specVectors is a spec with these vector indexes, on attribute emb with
// 8 dimensions, COSINE; the search schema of "byTenant" is tenant/HASH.
func specVectors(names ...string) *awsv1alpha1.DynamoDBTableSpec {
	s := &awsv1alpha1.DynamoDBTableSpec{BillingMode: ppr,
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "tenant", AttributeType: "S"}}}
	for _, n := range names {
		v := awsv1alpha1.VectorIndex{IndexName: n, VectorAttribute: awsv1alpha1.VectorAttribute{AttributeName: "emb"}, Dimensions: 8,
			DistanceFunction: awsv1alpha1.VectorDistanceCosine}
		if n == "byTenant" {
			v.SearchSchema = []awsv1alpha1.VectorSearchSchemaElement{{AttributeName: "tenant", Type: "HASH"}}
		}
		s.VectorIndexes = append(s.VectorIndexes, v)
	}
	return s
}

// reported is what AWS reports of the spec's vector indexes, each in the
// status given ("CREATING+" is CREATING and backfilling).
func reported(statuses map[string]string) map[string]Vector {
	var names []string
	for n := range statuses {
		names = append(names, n)
	}
	out := DesiredVectors(specVectors(names...))
	for n, s := range statuses {
		v := out[n]
		v.Status, v.Backfilling = s, s == "CREATING+"
		if v.Backfilling {
			v.Status = "CREATING"
		}
		out[n] = v
	}
	return out
}

// TestVectorIndexSteps: vector indexes are created and deleted one per
// UpdateTable, only while the table is ACTIVE and no index is being
// created or deleted (AWS refuses a delete while CREATING before
// backfilling, and the table is not Ready meanwhile); a definition that
// differs blocks the plan, naming what differs, since AWS cannot change
// one; an index going away is not deleted again.
func TestVectorIndexSteps(t *testing.T) {
	cases := []struct {
		name    string
		want    *awsv1alpha1.DynamoDBTableSpec
		have    map[string]Vector
		gsi     string // the status of a global secondary index "byA", "" for none
		steps   []string
		held    string // what holds the first step
		busy    string
		blocked string
	}{
		{name: "in sync", want: specVectors("byEmb", "byTenant"), have: reported(map[string]string{"byEmb": "ACTIVE", "byTenant": "ACTIVE"})},
		{name: "two to create: one per call, by name", want: specVectors("byEmb", "byTenant"), have: map[string]Vector{},
			steps: []string{"create vector index byEmb (8 dimensions, COSINE)", "create vector index byTenant (8 dimensions, COSINE)"}},
		{name: "one the spec dropped", want: specVectors("byEmb"), have: reported(map[string]string{"byEmb": "ACTIVE", "byTenant": "ACTIVE"}),
			steps: []string{"delete vector index byTenant"}},
		{name: "the last one dropped", want: specVectors(), have: reported(map[string]string{"byEmb": "ACTIVE"}),
			steps: []string{"delete vector index byEmb"}},
		{name: "creating, not yet backfilling: everything waits", want: specVectors("byTenant"), have: reported(map[string]string{"byEmb": "CREATING"}),
			steps: []string{"delete vector index byEmb", "create vector index byTenant (8 dimensions, COSINE)"},
			held:  "vector index byEmb is CREATING", busy: "vector index byEmb is CREATING"},
		{name: "backfilling: still waits", want: specVectors("byEmb", "byTenant"), have: reported(map[string]string{"byEmb": "CREATING+"}),
			steps: []string{"create vector index byTenant (8 dimensions, COSINE)"},
			held:  "vector index byEmb is CREATING (backfilling)", busy: "vector index byEmb is CREATING (backfilling)"},
		{name: "deleting: not deleted again", want: specVectors(), have: reported(map[string]string{"byEmb": "DELETING"}),
			held: "", busy: "vector index byEmb is DELETING"},
		{name: "named again while deleting: created once it is gone", want: specVectors("byEmb"), have: reported(map[string]string{"byEmb": "DELETING"}),
			steps: []string{"create vector index byEmb (8 dimensions, COSINE)"}, held: "vector index byEmb is DELETING", busy: "vector index byEmb is DELETING"},
		{name: "a global secondary index backfilling holds vector index steps", want: specVectors("byEmb"), have: map[string]Vector{}, gsi: "CREATING+",
			steps: []string{"create vector index byEmb (8 dimensions, COSINE)"}, held: "index byA is backfilling", busy: "index byA is CREATING"},
		{name: "a definition that differs blocks", want: specVectors("byTenant"), have: func() map[string]Vector {
			h := reported(map[string]string{"byTenant": "ACTIVE"})
			v := h["byTenant"]
			v.Dimensions = 16
			h["byTenant"] = v
			return h
		}(), blocked: "vector index byTenant differs in its dimensions from the spec"},
		{name: "an empty search schema is the same", want: specVectors("byEmb"), have: func() map[string]Vector {
			h := reported(map[string]string{"byEmb": "ACTIVE"})
			v := h["byEmb"]
			v.Search = []string{}
			h["byEmb"] = v
			return h
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := with(spec(ppr, nil), func(tb *Table) { tb.Vectors = DesiredVectors(c.want) })
			want.AttributeTypes["tenant"] = "S"
			have := with(active(ppr, nil), func(tb *Table) { tb.Vectors = c.have })
			if c.gsi != "" {
				ix := gsi("byA", "a", nil)
				ix.Status, ix.Backfilling = "CREATING", c.gsi == "CREATING+"
				have.GSIs = []Index{ix}
				want.GSIs = []Index{gsi("byA", "a", nil)}
				want.GSIs[0].Status = ""
			}
			p := Compute("t", want, have, Options{})
			if got := p.Descriptions(); !slices.Equal(got, c.steps) {
				t.Fatalf("steps %q, want %q", got, c.steps)
			}
			if len(p.Steps) > 0 {
				if got := p.Holds(p.Steps[0]); got != c.held {
					t.Errorf("held by %q, want %q", got, c.held)
				}
			}
			if p.Busy() != c.busy {
				t.Errorf("busy %q, want %q", p.Busy(), c.busy)
			}
			if !strings.Contains(p.Blocked, c.blocked) || (c.blocked == "" && p.Blocked != "") {
				t.Errorf("blocked %q, want %q", p.Blocked, c.blocked)
			}
		})
	}
}

// TestVectorIndexInputs: CreateTable (and ImportTable) carries the spec's
// vector indexes as AWS takes them, and an index create sends the type of each search
// schema attribute, never the vector attribute.
func TestVectorIndexInputs(t *testing.T) {
	spec := specVectors("byTenant")
	spec.KeySchema = awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}}
	in := CreateTableInput("t", spec, nil)
	if len(in.VectorIndexes) != 1 {
		t.Fatalf("CreateTable carries %d vector indexes", len(in.VectorIndexes))
	}
	v := in.VectorIndexes[0]
	if aws.ToString(v.IndexName) != "byTenant" || aws.ToString(v.VectorAttribute.AttributeName) != "emb" || aws.ToInt64(v.Dimensions) != 8 ||
		v.DistanceFunction != types.VectorDistanceFunctionCosine || v.Projection.ProjectionType != types.ProjectionTypeAll ||
		len(v.SearchSchema) != 1 || aws.ToString(v.SearchSchema[0].AttributeName) != "tenant" || v.SearchSchema[0].SearchSchemaElementType != types.SearchSchemaElementTypeHash {
		t.Fatalf("CreateTable's vector index %+v", v)
	}
	spec.ImportFrom = &awsv1alpha1.ImportSource{S3BucketSource: awsv1alpha1.ImportS3BucketSource{S3Bucket: "b"}, InputFormat: awsv1alpha1.ImportFormatION}
	if imp := ImportTableInput("t", spec, "token"); len(imp.TableCreationParameters.VectorIndexes) != 1 {
		t.Fatalf("ImportTable carries %d vector indexes (AWS API TableCreationParameters takes them)", len(imp.TableCreationParameters.VectorIndexes))
	}
	spec.ImportFrom = nil

	want := Desired(spec, nil)
	have := with(active(ppr, nil), func(tb *Table) { tb.Vectors = map[string]Vector{} })
	p := Compute("t", want, have, Options{})
	if len(p.Steps) != 1 || p.Steps[0].Kind != StepCreateVectorIndex || VectorIndexOf(p.Steps[0]) != "byTenant" {
		t.Fatalf("steps %q", p.Descriptions())
	}
	defs := p.Steps[0].Table.AttributeDefinitions
	if len(defs) != 1 || aws.ToString(defs[0].AttributeName) != "tenant" || defs[0].AttributeType != types.ScalarAttributeTypeS {
		t.Fatalf("attribute definitions %+v", defs)
	}
}

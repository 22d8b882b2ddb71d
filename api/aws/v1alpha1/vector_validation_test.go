package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// vectorSpec is a PAY_PER_REQUEST table with two vector indexes on one
// vector attribute, the second with a search schema whose attributes are
// defined (and used by no key).
const vectorSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: tenant, attributeType: S}
- {attributeName: year, attributeType: "N"}
keySchema:
- {attributeName: pk, keyType: HASH}
vectorIndexes:
- indexName: byEmbedding
  vectorAttribute: {attributeName: embedding}
  dimensions: 1024
  distanceFunction: COSINE
- indexName: byTenantEmbedding
  vectorAttribute: {attributeName: embedding}
  dimensions: 1024
  distanceFunction: DOT_PRODUCT
  projection: {projectionType: INCLUDE, nonKeyAttributes: [title]}
  searchSchema:
  - {attributeName: tenant, type: HASH}
  - {attributeName: year, type: INLINE_FILTER}
`

// vectorIndex is one more vector index on attribute v<i>, for the count
// limit.
func vectorIndex(i int) string {
	return fmt.Sprintf("- indexName: extra%d\n  vectorAttribute: {attributeName: v%d}\n  dimensions: 8\n  distanceFunction: EUCLIDEAN\n", i, i)
}

func TestVectorIndexesAreAccepted(t *testing.T) {
	if err := env.Client.Create(context.Background(), manifest(t, "vector-indexes", vectorSpec)); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	five := vectorSpec + vectorIndex(1) + vectorIndex(2) + vectorIndex(3)
	if err := env.Client.Create(context.Background(), manifest(t, "vector-indexes-five", five)); err != nil {
		t.Fatalf("five vector indexes rejected: %v", err)
	}
}

// TestVectorIndexesRefuseBadInput: each case makes one mistake AWS refuses
// (internal/ddbgap/vector.go cites each refusal), and kubectl says which.
func TestVectorIndexesRefuseBadInput(t *testing.T) {
	on := func(old, new string) string {
		if !strings.Contains(vectorSpec, old) {
			panic("test case does not match vectorSpec: " + old)
		}
		return strings.Replace(vectorSpec, old, new, 1)
	}
	cases := []struct{ name, spec, message string }{
		{"provisioned billing", vectorSpec + "billingMode: PROVISIONED\nprovisionedThroughput: {readCapacityUnits: 1, writeCapacityUnits: 1}\n",
			"vectorIndexes need billingMode PAY_PER_REQUEST"},
		{"a sixth index", vectorSpec + vectorIndex(1) + vectorIndex(2) + vectorIndex(3) + vectorIndex(4),
			"must have at most 5 items"},
		{"name too short", on("indexName: byEmbedding", "indexName: by"), "spec.vectorIndexes[0].indexName"},
		{"name too long", on("indexName: byEmbedding", "indexName: "+strings.Repeat("n", 256)), "spec.vectorIndexes[0].indexName"},
		{"name twice", on("indexName: byTenantEmbedding", "indexName: byEmbedding"), "Duplicate value"},
		{"no dimensions", on("  dimensions: 1024\n  distanceFunction: COSINE", "  distanceFunction: COSINE"), "dimensions: Required value"},
		{"zero dimensions", on("dimensions: 1024\n  distanceFunction: COSINE", "dimensions: 0\n  distanceFunction: COSINE"),
			"should be greater than or equal to 1"},
		{"4097 dimensions", on("dimensions: 1024\n  distanceFunction: COSINE", "dimensions: 4097\n  distanceFunction: COSINE"),
			"should be less than or equal to 4096"},
		{"distance function AWS does not know", on("distanceFunction: COSINE", "distanceFunction: MANHATTAN"),
			`supported values: "COSINE", "EUCLIDEAN", "DOT_PRODUCT"`},
		{"vector attribute in attributeDefinitions", on("- {attributeName: year, attributeType: \"N\"}\n",
			"- {attributeName: year, attributeType: \"N\"}\n- {attributeName: embedding, attributeType: B}\n"),
			"a vector index's vectorAttribute must not be in attributeDefinitions"},
		{"search schema attribute without a type", on("- {attributeName: year, attributeType: \"N\"}\n", ""),
			"every vector index searchSchema attributeName must be defined in attributeDefinitions"},
		{"search schema type AWS does not know", on("type: INLINE_FILTER", "type: RANGE"),
			`supported values: "HASH", "INLINE_FILTER"`},
		{"one vector attribute, two dimensions", on("dimensions: 1024\n  distanceFunction: DOT_PRODUCT", "dimensions: 512\n  distanceFunction: DOT_PRODUCT"),
			"vector indexes on the same vectorAttribute must have the same dimensions"},
		{"projection INCLUDE without attributes", on("projection: {projectionType: INCLUDE, nonKeyAttributes: [title]}", "projection: {projectionType: INCLUDE}"),
			"nonKeyAttributes is required when projectionType is INCLUDE"},
		{"attribute defined for nothing", on("  - {attributeName: year, type: INLINE_FILTER}\n", ""),
			"attributeDefinitions may only list attributes used in a key schema of the table or of an index, or in a vector index's searchSchema"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("invalid-vector-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

// TestVectorIndexCannotChange: AWS has no update of a vector index, so a
// changed definition is refused at admission (it would otherwise mean
// deleting an index searches rely on); adding and removing indexes, and a
// new name for a new definition, are allowed.
func TestVectorIndexCannotChange(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "vector-immutable", vectorSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	index := func(u map[string]any, i int) map[string]any {
		return u["spec"].(map[string]any)["vectorIndexes"].([]any)[i].(map[string]any)
	}
	const refusal = "a vector index cannot change once declared"
	for name, change := range map[string]func(map[string]any){
		"dimensions":       func(v map[string]any) { v["dimensions"] = int64(512) },
		"distanceFunction": func(v map[string]any) { v["distanceFunction"] = "EUCLIDEAN" },
		"vectorAttribute":  func(v map[string]any) { v["vectorAttribute"] = map[string]any{"attributeName": "other"} },
		"projection":       func(v map[string]any) { v["projection"] = map[string]any{"projectionType": "KEYS_ONLY"} },
		"searchSchema": func(v map[string]any) {
			v["searchSchema"] = []any{map[string]any{"attributeName": "tenant", "type": "INLINE_FILTER"}, map[string]any{"attributeName": "year", "type": "INLINE_FILTER"}}
		},
	} {
		changed := obj.DeepCopy()
		change(index(changed.Object, 1))
		if err := env.Client.Update(ctx, changed); err == nil || !strings.Contains(err.Error(), refusal) {
			t.Errorf("changed %s: err = %v, want %q", name, err, refusal)
		}
	}
	renamed := obj.DeepCopy()
	index(renamed.Object, 0)["indexName"] = "byEmbeddingV2"
	index(renamed.Object, 0)["distanceFunction"] = "EUCLIDEAN"
	if err := env.Client.Update(ctx, renamed); err != nil {
		t.Fatalf("a new definition under a new name rejected: %v", err)
	}
	removed := renamed.DeepCopy()
	spec := removed.Object["spec"].(map[string]any)
	spec["vectorIndexes"] = spec["vectorIndexes"].([]any)[:1]
	spec["attributeDefinitions"] = spec["attributeDefinitions"].([]any)[:1]
	if err := env.Client.Update(ctx, removed); err != nil {
		t.Fatalf("removing a vector index rejected: %v", err)
	}
}

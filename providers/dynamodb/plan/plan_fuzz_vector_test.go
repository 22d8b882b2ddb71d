package plan

import (
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan's part for vector indexes (vector.go): what the generator adds
// to the spec and to what AWS reports, and the legality of their steps as
// AWS states it (API UpdateTable VectorIndexUpdates, one per call) and as
// ExtendDB measured it (ExtendDB/extenddb crates/core/src/types/table.rs):
// PAY_PER_REQUEST only, at most five, the vector attribute not among the
// attribute definitions and the search schema's attributes among them, no
// name created twice, no delete of an index CREATING and not yet
// backfilling. Its choices come after all the others, so the committed
// corpus keeps its meaning.

var (
	fuzzVectorNames  = []string{"vecA", "vecB", "vecC", "vecD", "vecE", "vecF", "vecG"}
	fuzzVectorAttrs  = []string{"emb1", "emb2"}
	fuzzSearchAttrs  = []string{"s1", "s2"}
	fuzzVectorStatus = []string{"ACTIVE", "ACTIVE", "CREATING", "CREATING+", "DELETING"} // + is backfilling
)

// fuzzVector is a vector index as the CRD allows it; its dimensions follow
// its attribute, as the CRD's rule has indexes on one attribute agree.
func (s *fuzzSource) fuzzVector(name string) awsv1alpha1.VectorIndex {
	attr := s.pick(fuzzVectorAttrs...)
	v := awsv1alpha1.VectorIndex{IndexName: name, VectorAttribute: awsv1alpha1.VectorAttribute{AttributeName: attr},
		Dimensions:       int64(8 * (1 + slices.Index(fuzzVectorAttrs, attr))),
		DistanceFunction: s.pick(awsv1alpha1.VectorDistanceCosine, awsv1alpha1.VectorDistanceEuclidean, awsv1alpha1.VectorDistanceDotProduct),
		Projection:       s.projection()}
	for _, a := range fuzzSearchAttrs {
		if s.bool() {
			v.SearchSchema = append(v.SearchSchema, awsv1alpha1.VectorSearchSchemaElement{AttributeName: a, Type: s.pick("HASH", "INLINE_FILTER")})
		}
	}
	return v
}

// vectors2026 gives a PAY_PER_REQUEST spec up to five vector indexes (the
// search schema's attributes defined), and a PAY_PER_REQUEST table up to
// five, each ACTIVE, CREATING (backfilling or not) or DELETING, defined as
// the spec says or otherwise.
func (s *fuzzSource) vectors2026(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) {
	if spec.BillingMode == awsv1alpha1.BillingModePayPerRequest {
		for range s.intn(awsv1alpha1.MaxVectorIndexes + 1) {
			name := s.pick(fuzzVectorNames...)
			if !slices.ContainsFunc(spec.VectorIndexes, func(v awsv1alpha1.VectorIndex) bool { return v.IndexName == name }) {
				spec.VectorIndexes = append(spec.VectorIndexes, s.fuzzVector(name))
			}
		}
		for _, v := range spec.VectorIndexes {
			for _, e := range v.SearchSchema {
				if !slices.ContainsFunc(spec.AttributeDefinitions, func(a awsv1alpha1.AttributeDefinition) bool { return a.AttributeName == e.AttributeName }) {
					spec.AttributeDefinitions = append(spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{
						AttributeName: e.AttributeName, AttributeType: s.pick("S", "N", "B")})
				}
			}
		}
	}
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		return
	}
	for range s.intn(awsv1alpha1.MaxVectorIndexes + 1) {
		name := s.pick(fuzzVectorNames...)
		if slices.ContainsFunc(d.VectorIndexes, func(v types.VectorIndexDescription) bool { return aws.ToString(v.IndexName) == name }) {
			continue
		}
		def := s.fuzzVector(name)
		if s.bool() {
			for _, w := range spec.VectorIndexes {
				if w.IndexName == name {
					def = w // in sync with the spec
				}
			}
		}
		v := awsVectorIndex(name, DesiredVectors(&awsv1alpha1.DynamoDBTableSpec{VectorIndexes: []awsv1alpha1.VectorIndex{def}})[name])
		status := s.pick(fuzzVectorStatus...)
		d.VectorIndexes = append(d.VectorIndexes, types.VectorIndexDescription{IndexName: v.IndexName, VectorAttribute: v.VectorAttribute,
			Dimensions: v.Dimensions, DistanceFunction: v.DistanceFunction, Projection: v.Projection, SearchSchema: v.SearchSchema,
			IndexStatus: types.IndexStatus(status[:len(status)-boolInt(status[len(status)-1] == '+')]), Backfilling: aws.Bool(status == "CREATING+")})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkVectorPlan holds each vector index step to AWS's rules, walking the
// steps with the table's billing mode and vector indexes as each leaves
// them; and CreateTable carries the spec's vector indexes.
func checkVectorPlan(t *testing.T, spec *awsv1alpha1.DynamoDBTableSpec, want, have *Table, p *Plan) {
	t.Helper()
	in := CreateTableInput("fuzz-table", spec, nil)
	if len(in.VectorIndexes) != len(spec.VectorIndexes) || len(in.VectorIndexes) > awsv1alpha1.MaxVectorIndexes {
		t.Fatalf("CreateTable carries %d vector indexes, the spec %d", len(in.VectorIndexes), len(spec.VectorIndexes))
	}
	mode := have.BillingMode
	vectors := maps.Clone(have.Vectors)
	for i, s := range p.Steps {
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("step %d (%s %q) of %v: "+format, append([]any{i, s.Kind, s.Description, p.Descriptions()}, args...)...)
		}
		if s.Table == nil {
			continue
		}
		if s.Table.BillingMode != "" {
			mode = string(s.Table.BillingMode)
			// One DELETING is going: the switch waits for it (busy).
			live := slices.DeleteFunc(slices.Sorted(maps.Keys(vectors)), func(n string) bool { return vectors[n].Status == string(types.IndexStatusDeleting) })
			if mode != awsv1alpha1.BillingModePayPerRequest && len(live) > 0 {
				fail("switch to %s while the table has vector indexes %v (AWS: only supported for PAY_PER_REQUEST tables)", mode, live)
			}
			if len(live) < len(vectors) && p.Holds(p.Steps[0]) == "" {
				fail("a plan sent while a vector index is DELETING")
			}
		}
		if len(s.Table.VectorIndexUpdates) == 0 {
			continue
		}
		checkVectorStep(fail, s, mode, want, vectors)
		if i == 0 && p.Holds(s) == "" {
			if busy := vectorsBusy(have); busy != "" {
				fail("sent while %s", busy)
			}
			for _, ix := range have.GSIs {
				if ix.Status != "" && ix.Status != string(types.IndexStatusActive) {
					fail("sent while index %s is %s", ix.Name, ix.Status)
				}
			}
			if have.Status != string(types.TableStatusActive) {
				fail("sent while the table is %s", have.Status)
			}
		}
	}
}

// checkVectorStep checks one vector index create or delete.
func checkVectorStep(fail func(string, ...any), s Step, mode string, want *Table, vectors map[string]Vector) {
	in := s.Table
	if len(in.VectorIndexUpdates) != 1 {
		fail("%d vector index updates in one call (AWS takes one)", len(in.VectorIndexUpdates))
	}
	if in.BillingMode != "" || in.ProvisionedThroughput != nil || in.StreamSpecification != nil || in.DeletionProtectionEnabled != nil ||
		in.TableClass != "" || in.SSESpecification != nil || len(in.ReplicaUpdates) > 0 || len(in.GlobalSecondaryIndexUpdates) > 0 ||
		in.OnDemandThroughput != nil || in.WarmThroughput != nil || in.DisassociationProtectionEnabled != nil {
		fail("a vector index update combined with another change")
	}
	u := in.VectorIndexUpdates[0]
	switch {
	case u.Create != nil && u.Delete == nil:
		c := u.Create
		name := aws.ToString(c.IndexName)
		if mode != awsv1alpha1.BillingModePayPerRequest {
			fail("vector index %s created on a %s table", name, mode)
		}
		if old, ok := vectors[name]; ok && old.Status != string(types.IndexStatusDeleting) {
			fail("creates vector index %s, which exists (%s)", name, old.Status)
		}
		w, ok := want.Vectors[name]
		if !ok || len(name) < 3 || len(name) > 255 {
			fail("creates vector index %s, which the spec does not name", name)
		}
		dims := aws.ToInt64(c.Dimensions)
		if dims < 1 || dims > awsv1alpha1.MaxVectorDimensions || c.Projection == nil || c.VectorAttribute == nil {
			fail("vector index %s: %d dimensions, projection %v", name, dims, c.Projection)
		}
		defined := map[string]bool{}
		for _, a := range in.AttributeDefinitions {
			if a.AttributeType == "" {
				fail("attribute %s without a type", aws.ToString(a.AttributeName))
			}
			defined[aws.ToString(a.AttributeName)] = true
		}
		if defined[aws.ToString(c.VectorAttribute.AttributeName)] {
			fail("vector attribute %s in the attribute definitions", aws.ToString(c.VectorAttribute.AttributeName))
		}
		for _, e := range c.SearchSchema {
			if !defined[aws.ToString(e.AttributeName)] {
				fail("search schema attribute %s not in the attribute definitions", aws.ToString(e.AttributeName))
			}
		}
		if got := ObservedVectors([]types.VectorIndexDescription{{IndexName: c.IndexName, VectorAttribute: c.VectorAttribute, Dimensions: c.Dimensions,
			DistanceFunction: c.DistanceFunction, Projection: c.Projection, SearchSchema: c.SearchSchema}})[name]; got.change(w) != "" {
			fail("vector index %s created with another %s than the spec's", name, got.change(w))
		}
		vectors[name] = Vector{Status: string(types.IndexStatusActive)}
		live := 0
		for _, v := range vectors {
			if v.Status != string(types.IndexStatusDeleting) {
				live++
			}
		}
		if live > awsv1alpha1.MaxVectorIndexes {
			fail("a vector index beyond AWS's %d", awsv1alpha1.MaxVectorIndexes)
		}
	case u.Delete != nil && u.Create == nil:
		name := aws.ToString(u.Delete.IndexName)
		v, ok := vectors[name]
		if !ok || v.Status == string(types.IndexStatusDeleting) {
			fail("deletes vector index %s, which is not there (%v)", name, ok)
		}
		if _, wanted := want.Vectors[name]; wanted {
			fail("deletes vector index %s, which the spec names", name)
		}
		if len(in.AttributeDefinitions) > 0 {
			fail("attribute definitions with a delete")
		}
		delete(vectors, name)
	default:
		fail("a vector index update with other than one action")
	}
}

// applyVectorStep does to the model what AWS does for a vector index step,
// once it has gone through: the index ACTIVE, or gone.
func applyVectorStep(tb *Table, in *dynamodb.UpdateTableInput) {
	for _, u := range in.VectorIndexUpdates {
		tb.Vectors = maps.Clone(tb.Vectors)
		switch {
		case u.Create != nil:
			c := u.Create
			v := ObservedVectors([]types.VectorIndexDescription{{IndexName: c.IndexName, VectorAttribute: c.VectorAttribute, Dimensions: c.Dimensions,
				DistanceFunction: c.DistanceFunction, Projection: c.Projection, SearchSchema: c.SearchSchema, IndexStatus: types.IndexStatusActive}})
			maps.Copy(tb.Vectors, v)
		case u.Delete != nil:
			delete(tb.Vectors, aws.ToString(u.Delete.IndexName))
		}
	}
}

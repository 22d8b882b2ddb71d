package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Vector indexes (API VectorIndex, aws-sdk-go-v2 service/dynamodb v1.63.0):
// CreateTable creates them with the table (VectorIndexes), and afterwards
// one UpdateTable creates or deletes one (VectorIndexUpdates, one per
// call). AWS has no update of a vector index: a definition that differs
// from the table's blocks the plan (the API server refuses the spec change
// that would cause it; an adopted table may still differ), and a new name
// is a new index.
//
// DescribeTable reports each one CREATING, ACTIVE or DELETING, Backfilling
// while it is filled from the table's items. What AWS refuses, as ExtendDB
// measured it against AWS (ExtendDB/extenddb crates/core/src/types/table.rs):
// a delete while the index is CREATING and not yet backfilling
// (ResourceInUseException), a name reused while the old index is still
// there. So a vector index step is sent only when the table is ACTIVE and
// no index (global secondary or vector) is being created or deleted; and
// since AWS's documentation says nothing of what else UpdateTable may do
// while a vector index is CREATING or DELETING, nothing else is sent then
// either, and the table is not Ready until every vector index is ACTIVE.
//
// The spec lists the table's whole set of vector indexes, as it does its
// global secondary indexes: one the spec does not name is deleted.

// Kinds of the vector index steps.
const (
	StepCreateVectorIndex StepKind = "CreateVectorIndex"
	StepDeleteVectorIndex StepKind = "DeleteVectorIndex"
)

// ReasonVectorIndexMismatch is the reason of a plan blocked by a vector
// index whose definition on the table differs from the spec's.
const ReasonVectorIndexMismatch = "VectorIndexMismatch"

// Vector is one vector index.
type Vector struct {
	Attribute  string
	Dimensions int64
	Distance   string
	Projection Projection
	// Search is the search schema, "attribute/TYPE", sorted.
	Search []string
	// Status and Backfilling are observed only.
	Status      string
	Backfilling bool
}

func init() {
	register(&feature{
		kinds:   []StepKind{StepCreateVectorIndex, StepDeleteVectorIndex},
		desire:  func(s source, want *Table) { want.Vectors = DesiredVectors(s.DynamoDBTableSpec) },
		observe: func(d *types.TableDescription, have *Table) { have.Vectors = ObservedVectors(d.VectorIndexes) },
		busy:    vectorsBusy,
		create: func(_ source, want *Table, in *dynamodb.CreateTableInput) {
			for _, name := range slices.Sorted(maps.Keys(want.Vectors)) {
				in.VectorIndexes = append(in.VectorIndexes, awsVectorIndex(name, want.Vectors[name]))
			}
		},
		passes: []pass{{atDeleteVectorIndexes, (*planner).deleteVectors}, {atCreateVectorIndexes, (*planner).createVectors}},
	})
}

// DesiredVectors are the spec's vector indexes, by name: never nil, since
// the spec lists them all.
func DesiredVectors(spec *awsv1alpha1.DynamoDBTableSpec) map[string]Vector {
	out := map[string]Vector{}
	for _, v := range spec.VectorIndexes {
		var search []string
		for _, e := range v.SearchSchema {
			search = append(search, e.AttributeName+"/"+e.Type)
		}
		slices.Sort(search)
		out[v.IndexName] = Vector{Attribute: v.VectorAttribute.AttributeName, Dimensions: v.Dimensions,
			Distance: v.DistanceFunction, Projection: specProjection(v.Projection), Search: search}
	}
	return out
}

// ObservedVectors are DescribeTable's vector indexes, by name. AWS does not
// echo an empty search schema.
func ObservedVectors(ds []types.VectorIndexDescription) map[string]Vector {
	out := map[string]Vector{}
	for _, d := range ds {
		var search []string
		for _, e := range d.SearchSchema {
			search = append(search, aws.ToString(e.AttributeName)+"/"+string(e.SearchSchemaElementType))
		}
		slices.Sort(search)
		v := Vector{Dimensions: aws.ToInt64(d.Dimensions), Distance: string(d.DistanceFunction),
			Projection: awsProjection(d.Projection), Search: search, Status: string(d.IndexStatus), Backfilling: aws.ToBool(d.Backfilling)}
		if d.VectorAttribute != nil {
			v.Attribute = aws.ToString(d.VectorAttribute.AttributeName)
		}
		out[aws.ToString(d.IndexName)] = v
	}
	return out
}

// change names what differs between two definitions of a vector index, ""
// when nothing does.
func (v Vector) change(other Vector) string {
	switch {
	case v.Attribute != other.Attribute:
		return "vector attribute"
	case v.Dimensions != other.Dimensions:
		return "dimensions"
	case v.Distance != other.Distance:
		return "distance function"
	case v.Projection.Type != other.Projection.Type || !slices.Equal(v.Projection.NonKey, other.Projection.NonKey):
		return "projection"
	case !slices.Equal(v.Search, other.Search):
		return "search schema"
	}
	return ""
}

// settled says whether AWS is done with the index: it is ACTIVE.
func (v Vector) settled() bool {
	return v.Status == "" || v.Status == string(types.IndexStatusActive)
}

// vectorsBusy names a vector index AWS is still creating or deleting, ""
// when none.
func vectorsBusy(have *Table) string {
	for _, name := range slices.Sorted(maps.Keys(have.Vectors)) {
		v := have.Vectors[name]
		if v.settled() {
			continue
		}
		if v.Backfilling {
			return fmt.Sprintf("vector index %s is %s (backfilling)", name, v.Status)
		}
		return fmt.Sprintf("vector index %s is %s", name, v.Status)
	}
	return ""
}

// isVectorStep says whether a step creates or deletes a vector index.
func isVectorStep(kind StepKind) bool {
	return kind == StepCreateVectorIndex || kind == StepDeleteVectorIndex
}

// deleteVectors deletes the vector indexes the spec does not name, one per
// call, and blocks on one whose definition differs.
func (p *planner) deleteVectors() {
	want, cur := p.want.Vectors, p.cur.Vectors
	if want == nil || cur == nil {
		return
	}
	var differ []string
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		if cur[name].Status == string(types.IndexStatusDeleting) {
			continue // going already; a spec that names it again has it created after (createVectors)
		}
		w, kept := want[name]
		if kept {
			if what := w.change(cur[name]); what != "" {
				differ = append(differ, fmt.Sprintf("%s differs in its %s", name, what))
			}
			continue
		}
		in := p.updateTable()
		in.VectorIndexUpdates = []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String(name)}}}
		p.add(Step{Kind: StepDeleteVectorIndex, Description: "delete vector index " + name, Table: in})
		p.cur.Vectors = maps.Clone(p.cur.Vectors)
		delete(p.cur.Vectors, name)
	}
	if len(differ) > 0 {
		p.block(ReasonVectorIndexMismatch, fmt.Sprintf("vector index %s from the spec, and DynamoDB cannot change a vector index: "+
			"make the spec match the table, or give the new definition a new indexName", strings.Join(differ, ", ")))
	}
}

// createVectors creates the vector indexes the table lacks, one per call,
// by name.
func (p *planner) createVectors() {
	want, cur := p.want.Vectors, p.cur.Vectors
	if want == nil || cur == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if c, ok := cur[name]; ok && c.Status != string(types.IndexStatusDeleting) {
			continue
		}
		w := want[name]
		v := awsVectorIndex(name, w)
		in := p.updateTable()
		in.AttributeDefinitions = p.searchAttributes(w)
		in.VectorIndexUpdates = []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: v.IndexName,
			VectorAttribute: v.VectorAttribute, Dimensions: v.Dimensions, DistanceFunction: v.DistanceFunction,
			Projection: v.Projection, SearchSchema: v.SearchSchema}}}
		p.add(Step{Kind: StepCreateVectorIndex, Description: fmt.Sprintf("create vector index %s (%d dimensions, %s)", name, w.Dimensions, w.Distance), Table: in})
		p.cur.Vectors = maps.Clone(p.cur.Vectors)
		w.Status = string(types.IndexStatusActive)
		p.cur.Vectors[name] = w
	}
}

// searchAttributes are the attribute definitions of a vector index's
// search schema, which UpdateTable needs as it needs a new index's keys.
func (p *planner) searchAttributes(v Vector) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, s := range v.Search {
		name, _, _ := strings.Cut(s, "/")
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(name),
			AttributeType: types.ScalarAttributeType(p.want.AttributeTypes[name])})
	}
	return out
}

// awsVectorIndex is a vector index as CreateTable takes it.
func awsVectorIndex(name string, v Vector) types.VectorIndex {
	out := types.VectorIndex{IndexName: aws.String(name), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String(v.Attribute)},
		Dimensions: aws.Int64(v.Dimensions), DistanceFunction: types.VectorDistanceFunction(v.Distance), Projection: awsProjectionOf(v.Projection)}
	for _, s := range v.Search {
		attr, typ, _ := strings.Cut(s, "/")
		out.SearchSchema = append(out.SearchSchema, types.SearchSchemaElement{AttributeName: aws.String(attr),
			SearchSchemaElementType: types.SearchSchemaElementType(typ)})
	}
	return out
}

// VectorIndexOf names the vector index a step creates or deletes, "" for
// any other step.
func VectorIndexOf(step Step) string {
	if step.Table == nil {
		return ""
	}
	for _, u := range step.Table.VectorIndexUpdates {
		switch {
		case u.Create != nil:
			return aws.ToString(u.Create.IndexName)
		case u.Delete != nil:
			return aws.ToString(u.Delete.IndexName)
		}
	}
	return ""
}

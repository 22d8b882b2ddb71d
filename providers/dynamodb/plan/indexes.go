package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Global secondary indexes: their key schema and projection, which
// DynamoDB cannot change in place (a changed one is deleted and created
// again, only with the user's annotation), and the local secondary indexes,
// which only CreateTable makes. An index is created or deleted one per
// UpdateTable.

// Kinds of the index steps.
const (
	StepDeleteIndex StepKind = "DeleteIndex"
	StepCreateIndex StepKind = "CreateIndex"
)

func init() {
	register(&feature{
		kinds: []StepKind{StepDeleteIndex, StepCreateIndex},
		desire: func(s source, want *Table) {
			for i, g := range s.GlobalSecondaryIndexes {
				want.GSIs[i].Keys = withScalars(specKeys(g.KeySchema), want.AttributeTypes)
				want.GSIs[i].Projection = specProjection(g.Projection)
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			scalars := awsAttributeTypes(d.AttributeDefinitions)
			for i, g := range d.GlobalSecondaryIndexes {
				have.GSIs[i].Keys = withScalars(awsKeys(g.KeySchema), scalars)
				have.GSIs[i].Projection = awsProjection(g.Projection)
			}
		},
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			for _, l := range s.LocalSecondaryIndexes {
				in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
					IndexName: aws.String(l.IndexName), KeySchema: awsKeySchema(specKeys(l.KeySchema)),
					Projection: awsProjectionOf(specProjection(l.Projection))})
			}
		},
		createIndex: func(want Index, in *types.CreateGlobalSecondaryIndexAction) {
			in.KeySchema, in.Projection = awsKeySchema(want.Keys), awsProjectionOf(want.Projection)
		},
		passes: []pass{{atDeleteIndexes, (*planner).deleteIndexes}, {atCreateIndexes, (*planner).createIndexes}},
	})
}

// sameShape says whether two definitions of an index have the same key
// schema (attribute types included) and projection, the parts DynamoDB
// cannot change in place.
func (ix Index) sameShape(other Index) bool { return ix.shapeChange(other) == "" }

// shapeChange names what differs between two definitions of an index that
// DynamoDB cannot change in place, "" when nothing does.
func (ix Index) shapeChange(other Index) string {
	switch {
	case !sameKeys(withoutScalars(ix.Keys), withoutScalars(other.Keys)):
		return "key schema"
	case !sameKeys(ix.Keys, other.Keys):
		return "key attribute type"
	case ix.Projection.Type != other.Projection.Type || !slices.Equal(ix.Projection.NonKey, other.Projection.NonKey):
		return "projection"
	}
	return ""
}

// deleteIndexes removes indexes the spec no longer has, and indexes whose
// shape changed when replacement is allowed.
func (p *planner) deleteIndexes() {
	var blocked []string
	for _, have := range slices.Clone(p.cur.GSIs) {
		want, kept := p.want.index(have.Name)
		if kept && want.sameShape(have) {
			continue
		}
		if kept && !p.opts.AllowIndexReplacement {
			blocked = append(blocked, fmt.Sprintf("%s changed its %s", have.Name, want.shapeChange(have)))
			continue
		}
		in := p.updateTable()
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{
			Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(have.Name)}}}
		desc := "delete index " + have.Name
		if kept {
			desc = fmt.Sprintf("delete index %s to re-create it with a new %s", have.Name, want.shapeChange(have))
		}
		p.add(Step{Kind: StepDeleteIndex, Description: desc, Table: in})
		p.cur.removeIndex(have.Name)
	}
	if len(blocked) > 0 {
		p.block("", fmt.Sprintf("global secondary index %s, which DynamoDB cannot change in place; "+
			"annotate the object %s: \"true\" to delete and re-create it (queries on it fail meanwhile), or restore its previous definition",
			strings.Join(blocked, ", "), awsv1alpha1.AnnotationAllowIndexReplacement))
	}
}

// createIndexes adds missing indexes one per call, in spec order.
func (p *planner) createIndexes() {
	for _, want := range p.want.GSIs {
		if _, ok := p.cur.index(want.Name); ok {
			continue
		}
		in := p.updateTable()
		in.AttributeDefinitions = p.attributeDefinitions(want.Keys)
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Create: createIndexAction(want)}}
		p.add(Step{Kind: StepCreateIndex, Description: "create index " + want.Name, Table: in})
		p.cur.GSIs = append(p.cur.GSIs, want)
	}
}

func (p *planner) attributeDefinitions(keys []Key) []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, 0, len(keys))
	for _, k := range keys {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(k.Name),
			AttributeType: types.ScalarAttributeType(p.want.AttributeTypes[k.Name])})
	}
	return out
}

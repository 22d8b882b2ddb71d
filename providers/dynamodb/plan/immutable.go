package plan

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// ImmutableMismatch names what the spec and an existing table disagree on
// that no update can fix (the key schema and its attribute types, the
// local secondary indexes), "" when they agree. It matters for adopted
// tables: Tether's own were created from a spec that cannot change these
// fields (the API server refuses it).
func ImmutableMismatch(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) string {
	wantTypes, haveTypes := specAttributeTypes(spec.AttributeDefinitions), awsAttributeTypes(d.AttributeDefinitions)
	want, have := withScalars(specKeys(spec.KeySchema), wantTypes), withScalars(awsKeys(d.KeySchema), haveTypes)
	if !sameKeys(withoutScalars(want), withoutScalars(have)) {
		return "keySchema"
	}
	if diff := scalarDifferences(want, have); diff != "" {
		return "key attribute type (" + diff + ")"
	}
	wantLSIs := map[string]Index{}
	for _, l := range spec.LocalSecondaryIndexes {
		wantLSIs[l.IndexName] = Index{Keys: withScalars(specKeys(l.KeySchema), wantTypes), Projection: specProjection(l.Projection)}
	}
	if len(wantLSIs) != len(d.LocalSecondaryIndexes) {
		return "localSecondaryIndexes"
	}
	for _, l := range d.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		w, ok := wantLSIs[name]
		if !ok {
			return "localSecondaryIndexes"
		}
		h := Index{Keys: withScalars(awsKeys(l.KeySchema), haveTypes), Projection: awsProjection(l.Projection)}
		switch w.shapeChange(h) {
		case "":
		case "key attribute type":
			return fmt.Sprintf("local secondary index %s's key attribute type (%s)", name, scalarDifferences(w.Keys, h.Keys))
		default:
			return "localSecondaryIndexes"
		}
	}
	return ""
}

// scalarDifferences lists the key attributes whose types differ, as
// "pk is S in DynamoDB, N in the spec".
func scalarDifferences(want, have []Key) string {
	var out []string
	for i := range min(len(want), len(have)) {
		w, h := want[i], have[i]
		if w.Scalar != "" && h.Scalar != "" && w.Scalar != h.Scalar {
			out = append(out, fmt.Sprintf("%s is %s in DynamoDB, %s in the spec", w.Name, h.Scalar, w.Scalar))
		}
	}
	return strings.Join(out, "; ")
}

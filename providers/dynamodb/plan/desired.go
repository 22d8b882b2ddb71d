package plan

import (
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Desired normalises a spec. tags are all the tags the table should carry
// (the spec's, the operator's defaults, Tether's owner tags), which the
// adapter assembles. What depends on the status (what Tether added before
// and the spec dropped) the adapter adds.
func Desired(spec *awsv1alpha1.DynamoDBTableSpec, tags map[string]string) *Table {
	t := &Table{AttributeTypes: specAttributeTypes(spec.AttributeDefinitions)}
	for _, g := range spec.GlobalSecondaryIndexes {
		t.GSIs = append(t.GSIs, Index{Name: g.IndexName})
	}
	s := source{DynamoDBTableSpec: spec, tags: tags}
	for _, f := range features {
		if f.desire != nil {
			f.desire(s, t)
		}
	}
	return t
}

package dynamodb

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// A GSI key attribute's type changed in the spec (S -> N) is an index
// replacement: refused without the annotation (the table is not reported
// matching while it differs), done with it, against DynamoDB Local.
func TestIndexKeyTypeChangeIsAReplacement(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("g1x", "a", nil))
	f.converge(obj)
	setAttributeType(obj, "a", "N")
	obj.Generation++

	obs, err := f.pass(obj)
	if obs.Outcome == providers.OutcomeUpToDate {
		t.Fatal("a table whose index key type differs from the spec was reported up to date")
	}
	if !isTerminalReason(err, ReasonIndexReplacement) || !strings.Contains(err.Error(), "g1x changed its key attribute type") {
		t.Fatalf("err = %v, want terminal %s naming the key attribute type", err, ReasonIndexReplacement)
	}
	obj.Annotations = map[string]string{awsv1alpha1.AnnotationAllowIndexReplacement: "true"}
	f.converge(obj)
	for _, a := range f.describe(obj.Name).AttributeDefinitions {
		if aws.ToString(a.AttributeName) == "a" && a.AttributeType != "N" {
			t.Errorf("attribute a is %s after the replacement, want N", a.AttributeType)
		}
	}
	if f.proxy.Calls()["UpdateTable"] != 2 {
		t.Errorf("UpdateTable calls = %d, want 2 (delete, create)", f.proxy.Calls()["UpdateTable"])
	}
}

// Adopting a table whose key attribute types differ from the spec stops
// with a condition that names the attribute and both types: no update can
// change a table's key type.
func TestAdoptingATableWithOtherKeyTypesIsRefused(t *testing.T) {
	f := localFixture(t)
	obj := newTable()
	setAttributeType(obj, "pk", "N")
	if _, err := f.raw.CreateTable(t.Context(), plan.CreateTableInput(obj.Name, &obj.Spec, nil)); err != nil {
		t.Fatal(err)
	}
	setAttributeType(obj, "pk", "S")
	obj.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true"}
	_, err := f.pass(obj)
	te, ok := providers.AsTerminal(err)
	if !ok || te.Reason != ReasonImmutableMismatch || !strings.Contains(err.Error(), "pk is N in DynamoDB, S in the spec") {
		t.Fatalf("err = %v, want terminal %s naming pk's types", err, ReasonImmutableMismatch)
	}
}

func setAttributeType(obj *awsv1alpha1.DynamoDBTable, name, scalar string) {
	for i := range obj.Spec.AttributeDefinitions {
		if obj.Spec.AttributeDefinitions[i].AttributeName == name {
			obj.Spec.AttributeDefinitions[i].AttributeType = scalar
		}
	}
}

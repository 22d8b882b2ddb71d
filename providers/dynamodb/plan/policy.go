package plan

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// The table's resource-based policy, compared as parsed JSON: AWS may give
// back the document with other whitespace or key order (ACK compares it
// parsed too). What is desired depends on the status (the revision Tether
// attached, to remove when the spec drops the policy): the adapter sets it
// (DesiredPolicy).

// FeaturePolicy names the resource policy where an endpoint may lack it.
const FeaturePolicy = "resourcePolicy"

// Kinds of the resource policy steps.
const (
	stepPutPolicy    StepKind = "PutResourcePolicy"
	stepDeletePolicy StepKind = "DeleteResourcePolicy"
)

// maxPolicyBytes is PutResourcePolicy's limit: "The maximum size supported
// for a resource-based policy document is 20 KB. DynamoDB counts
// whitespaces" (API PutResourcePolicy); Tether sends the compact form.
const maxPolicyBytes = 20 * 1024

func init() {
	register(&feature{
		name:  FeaturePolicy,
		kinds: []StepKind{stepPutPolicy, stepDeletePolicy},
		uses:  func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.ResourcePolicy != nil },
		adopt: func(r *Reads, have *Table) { have.Policy = r.Policy },
		hide:  func(have *Table) { have.Policy = nil },
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			if pol, err := SpecPolicy(s.ResourcePolicy); err == nil && pol != nil {
				in.ResourcePolicy = aws.String(pol.Text)
			}
		},
		passes: []pass{{atPolicy, (*planner).updatePolicy}},
	})
}

// SpecPolicy parses the spec's document.
func SpecPolicy(raw *runtime.RawExtension) (*Policy, error) {
	if raw == nil {
		return nil, nil
	}
	var doc any
	if err := json.Unmarshal(raw.Raw, &doc); err != nil {
		return nil, fmt.Errorf("spec.resourcePolicy is not a JSON document: %w", err)
	}
	text, _ := json.Marshal(doc)
	if len(text) > maxPolicyBytes {
		return nil, fmt.Errorf("spec.resourcePolicy is %d bytes as compact JSON; DynamoDB takes at most %d", len(text), maxPolicyBytes)
	}
	return &Policy{Doc: doc, Text: string(text)}, nil
}

// DesiredPolicy is the spec's policy, or the removal of the one Tether
// attached (its revision, recorded in the status) when the spec has none.
func DesiredPolicy(raw *runtime.RawExtension, attached string) (*Policy, error) {
	want, err := SpecPolicy(raw)
	if err != nil || want != nil {
		return want, err
	}
	if attached != "" {
		return &Policy{Absent: true, Revision: attached}, nil
	}
	return nil, nil
}

// ParsedPolicy is a policy as GetResourcePolicy or PutResourcePolicy
// answered it.
func ParsedPolicy(text, revision string) *Policy {
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		doc = text // compared as text; differs from any document the spec can hold
	}
	return &Policy{Doc: doc, Text: text, Revision: revision}
}

// SamePolicy says whether two policies are the same document.
func SamePolicy(a, b *Policy) bool { return reflect.DeepEqual(a.Doc, b.Doc) }

// updatePolicy attaches the spec's policy when the table has none or
// another, and removes the one Tether attached when the spec dropped it.
// ExpectedRevisionId makes either fail, rather than overwrite, when someone
// changed the policy since Tether read it (API PutResourcePolicy).
func (p *planner) updatePolicy() {
	want, cur := p.want.Policy, p.cur.Policy
	if want == nil || cur == nil {
		return
	}
	if want.Absent {
		if !cur.Absent && cur.Revision == want.Revision {
			p.add(Step{Kind: stepDeletePolicy, Description: "remove the resource policy Tether attached",
				DeletePolicy: &dynamodb.DeleteResourcePolicyInput{ExpectedRevisionId: aws.String(cur.Revision)}})
			p.cur.Policy = &Policy{Absent: true}
		}
		return
	}
	if !cur.Absent && SamePolicy(want, cur) {
		return
	}
	expected := "NO_POLICY"
	if !cur.Absent {
		expected = cur.Revision
	}
	p.add(Step{Kind: stepPutPolicy, Description: "attach the resource policy",
		PutPolicy: &dynamodb.PutResourcePolicyInput{Policy: aws.String(want.Text), ExpectedRevisionId: aws.String(expected)}})
	p.cur.Policy = &Policy{Doc: want.Doc, Text: want.Text}
}

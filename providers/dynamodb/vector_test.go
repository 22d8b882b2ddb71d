package dynamodb

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// TestVectorIndexRefusals: what each answer to a vector index step means.
// DynamoDB Local's "Nothing to update" is an endpoint without vector
// indexes; AWS's ValidationException and LimitExceededException (a sixth
// index) stop with the index and AWS's words, never a resend (for
// LimitExceededException the generic classification would retry after a
// delay, for ever); ResourceInUseException (a delete while the index is
// still CREATING) is AWS busy, and any answer to another step is not
// this file's to read.
func TestVectorIndexRefusals(t *testing.T) {
	spec := &awsv1alpha1.DynamoDBTableSpec{BillingMode: awsv1alpha1.BillingModePayPerRequest,
		VectorIndexes: []awsv1alpha1.VectorIndex{{IndexName: "byEmb", VectorAttribute: awsv1alpha1.VectorAttribute{AttributeName: "emb"},
			Dimensions: 8, DistanceFunction: awsv1alpha1.VectorDistanceCosine}}}
	want := plan.Desired(spec, nil)
	have := &plan.Table{Status: "ACTIVE", BillingMode: awsv1alpha1.BillingModePayPerRequest, Vectors: map[string]plan.Vector{}}
	steps := plan.Compute("t", want, have, plan.Options{}).Steps
	if len(steps) != 1 {
		t.Fatalf("steps %v", steps)
	}
	create := steps[0]
	other := plan.Step{Kind: plan.StepDeleteIndex, Description: "delete index byA"}
	refusal := func(code, msg string) error { return &smithy.GenericAPIError{Code: code, Message: msg} }
	cases := []struct {
		name   string
		step   plan.Step
		err    error
		reason string // "" is nil: another reading applies
		words  string
	}{
		{"DynamoDB Local", create, refusal("ValidationException", "Nothing to update"), ReasonUnsupportedByEndpoint,
			"does not support vector indexes (index byEmb)"},
		// Also AWS's limit on operations at once, which passes: Classify's.
		{"a limit", create, refusal("LimitExceededException", "Subscriber limit exceeded"), "", ""},
		{"a name reused", create, refusal("ValidationException", "vector index byEmb already exists"), ReasonVectorIndexRefused, "already exists"},
		{"still creating", create, refusal("ResourceInUseException", "in use"), "", ""},
		{"another step", other, refusal("ValidationException", "Nothing to update"), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := vectorIndexRefused(c.step, c.err)
			if c.reason == "" {
				if got != nil {
					t.Fatalf("got %v, want nil", got)
				}
				return
			}
			var term *providers.TerminalError
			if !errors.As(got, &term) || term.Reason != c.reason || !strings.Contains(term.Error(), c.words) {
				t.Fatalf("got %v, want a terminal %s with %q", got, c.reason, c.words)
			}
		})
	}
}

// TestVectorCreateRefused: DynamoDB Local's refusal of a CreateTable whose
// attribute definitions a vector index's search schema alone uses is the
// endpoint lacking vector indexes, named by index; the same words without
// such an index, or another answer, are not.
func TestVectorCreateRefused(t *testing.T) {
	spec := &awsv1alpha1.DynamoDBTableSpec{BillingMode: awsv1alpha1.BillingModePayPerRequest,
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "tenant", AttributeType: "S"}},
		KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		VectorIndexes: []awsv1alpha1.VectorIndex{{IndexName: "byTenant", VectorAttribute: awsv1alpha1.VectorAttribute{AttributeName: "emb"},
			Dimensions: 8, DistanceFunction: awsv1alpha1.VectorDistanceCosine,
			SearchSchema: []awsv1alpha1.VectorSearchSchemaElement{{AttributeName: "tenant", Type: "HASH"}}}}}
	in := plan.CreateTableInput("t", spec, nil)
	local := &smithy.GenericAPIError{Code: "ValidationException",
		Message: "The number of attributes in key schema must match the number of attributes defined in attribute definitions."}
	var term *providers.TerminalError
	if err := vectorCreateRefused(in, local); !errors.As(err, &term) || term.Reason != ReasonUnsupportedByEndpoint ||
		!strings.Contains(err.Error(), "does not support vector indexes (index byTenant)") {
		t.Fatalf("DynamoDB Local's refusal: %v", err)
	}
	if err := vectorCreateRefused(in, &smithy.GenericAPIError{Code: "ValidationException", Message: "something else"}); err != nil {
		t.Fatalf("another refusal: %v", err)
	}
	plain := plan.CreateTableInput("t", &awsv1alpha1.DynamoDBTableSpec{KeySchema: spec.KeySchema, AttributeDefinitions: spec.AttributeDefinitions}, nil)
	if err := vectorCreateRefused(plain, local); err != nil {
		t.Fatalf("a table without vector indexes: %v", err)
	}
}

package plan

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// What DynamoDB reports for an on-demand table (throughput 0, key order
// RANGE first, projection attributes in another order) matches the spec
// that produced it: no update is planned.
func TestObservedOnDemandTableMatchesItsSpec(t *testing.T) {
	zero := &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(0), WriteCapacityUnits: aws.Int64(0)}
	d := &types.TableDescription{
		TableStatus:           types.TableStatusActive,
		BillingModeSummary:    &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest},
		ProvisionedThroughput: zero,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{
			IndexName: aws.String("byCustomer"), IndexStatus: types.IndexStatusActive, ProvisionedThroughput: zero,
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("created"), KeyType: types.KeyTypeRange},
				{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"b", "a"}},
		}},
		SSEDescription: &types.SSEDescription{Status: types.SSEStatusEnabled, KMSMasterKeyArn: aws.String("arn:aws:kms:eu-west-1:1:key/abc")},
	}
	spec := &awsv1alpha1.DynamoDBTableSpec{
		BillingMode: awsv1alpha1.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []awsv1alpha1.GlobalSecondaryIndex{{IndexName: "byCustomer",
			KeySchema:  awsv1alpha1.IndexKeySchema{{AttributeName: "customer", KeyType: "HASH"}, {AttributeName: "created", KeyType: "RANGE"}},
			Projection: awsv1alpha1.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"a", "b"}}}},
		SSESpecification: &awsv1alpha1.SSESpecification{SSEEnabled: true, KMSMasterKeyID: "abc"},
	}
	if p := Compute("t", Desired(spec, nil), Observed(d), Options{}); !p.Empty() {
		t.Errorf("planned %q for a table that matches", p)
	}
	// A table that was always PROVISIONED has no BillingModeSummary.
	d.BillingModeSummary = nil
	if got := Observed(d).BillingMode; got != awsv1alpha1.BillingModeProvisioned {
		t.Errorf("billing without summary = %s", got)
	}
}

func TestKMSKeyMatches(t *testing.T) {
	arn := "arn:aws:kms:eu-west-1:1:key/abc"
	for want, match := range map[string]bool{"": true, "abc": true, arn: true, "alias/mine": true, "def": false, "arn:aws:kms:eu-west-1:1:key/def": false} {
		if got := kmsKeyMatches(want, arn); got != match {
			t.Errorf("kmsKeyMatches(%q) = %v", want, got)
		}
	}
}

func TestImmutableMismatch(t *testing.T) {
	keys := []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}, {AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
	lsi := types.LocalSecondaryIndexDescription{IndexName: aws.String("byX"),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("x"), KeyType: types.KeyTypeRange}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}
	d := &types.TableDescription{KeySchema: keys, LocalSecondaryIndexes: []types.LocalSecondaryIndexDescription{lsi},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"},
			{AttributeName: aws.String("sk"), AttributeType: "N"}, {AttributeName: aws.String("x"), AttributeType: "S"}}}
	spec := func() *awsv1alpha1.DynamoDBTableSpec {
		return &awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"},
				{AttributeName: "sk", AttributeType: "N"}, {AttributeName: "x", AttributeType: "S"}},
			KeySchema: awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
			LocalSecondaryIndexes: []awsv1alpha1.LocalSecondaryIndex{{IndexName: "byX",
				KeySchema:  awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "x", KeyType: "RANGE"}},
				Projection: awsv1alpha1.Projection{ProjectionType: "KEYS_ONLY"}}},
		}
	}
	if got := ImmutableMismatch(spec(), d); got != "" {
		t.Errorf("matching table: %q", got)
	}
	s := spec()
	s.KeySchema = s.KeySchema[:1]
	if got := ImmutableMismatch(s, d); got != "keySchema" {
		t.Errorf("other key schema: %q", got)
	}
	s = spec()
	s.LocalSecondaryIndexes[0].Projection.ProjectionType = "ALL"
	if got := ImmutableMismatch(s, d); got != "localSecondaryIndexes" {
		t.Errorf("other LSI projection: %q", got)
	}
	s = spec()
	s.LocalSecondaryIndexes = nil
	if got := ImmutableMismatch(s, d); got != "localSecondaryIndexes" {
		t.Errorf("missing LSI: %q", got)
	}
	// Adopting a table whose key types differ names the attribute and both types.
	s = spec()
	s.AttributeDefinitions[1].AttributeType = "S"
	if got, want := ImmutableMismatch(s, d), "key attribute type (sk is N in DynamoDB, S in the spec)"; got != want {
		t.Errorf("other table key type: %q, want %q", got, want)
	}
	s = spec()
	s.AttributeDefinitions[2].AttributeType = "B"
	if got, want := ImmutableMismatch(s, d), "local secondary index byX's key attribute type (x is S in DynamoDB, B in the spec)"; got != want {
		t.Errorf("other LSI key type: %q, want %q", got, want)
	}
}

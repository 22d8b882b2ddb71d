package dynamodb

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
			KeySchema:  awsv1alpha1.KeySchema{{AttributeName: "customer", KeyType: "HASH"}, {AttributeName: "created", KeyType: "RANGE"}},
			Projection: awsv1alpha1.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"a", "b"}}}},
		SSESpecification: &awsv1alpha1.SSESpecification{SSEEnabled: true, KMSMasterKeyID: "abc"},
	}
	if p := plan("t", desiredTable(spec, nil), observedTable(d), planOptions{}); !p.Empty() {
		t.Errorf("planned %q for a table that matches", p)
	}
	// A table that was always PROVISIONED has no BillingModeSummary.
	d.BillingModeSummary = nil
	if got := observedTable(d).BillingMode; got != awsv1alpha1.BillingModeProvisioned {
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

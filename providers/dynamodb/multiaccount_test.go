package dynamodb

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// A joined table's local secondary indexes are the source's: they are no
// mismatch with its spec, which cannot declare them; its key schema still
// is. Any other table's are compared as before.
func TestImmutableViewOfAJoinedTable(t *testing.T) {
	spec := awsv1alpha1.DynamoDBTableSpec{
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
	}
	withLSI := &types.TableDescription{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndexDescription{{IndexName: aws.String("bySk"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}
	otherKey := &types.TableDescription{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	}
	joined := spec
	joined.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"}
	cases := []struct {
		name string
		spec awsv1alpha1.DynamoDBTableSpec
		d    *types.TableDescription
		want string
	}{
		{"joined, the source's LSI", joined, withLSI, ""},
		{"joined, another key schema", joined, otherKey, "keySchema"},
		{"not joined, an LSI the spec lacks", spec, withLSI, "localSecondaryIndexes"},
	}
	for _, c := range cases {
		obj := &awsv1alpha1.DynamoDBTable{Spec: c.spec}
		if got := plan.ImmutableMismatch(&obj.Spec, immutableView(obj, c.d)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if withLSI.LocalSecondaryIndexes == nil {
		t.Error("the description AWS gave was changed")
	}
}

// A joined table is Ready only as a member of a global table; any other
// table, or one not ACTIVE yet, is no concern of notJoined.
func TestNotJoined(t *testing.T) {
	ep := &access.Endpoint{Region: "eu-west-1"}
	joiner := &awsv1alpha1.DynamoDBTable{Spec: awsv1alpha1.DynamoDBTableSpec{
		GlobalTableSource: &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"}}}
	member := &types.TableDescription{TableStatus: types.TableStatusActive, GlobalTableVersion: aws.String("2019.11.21"),
		Replicas: []types.ReplicaDescription{{RegionName: aws.String("us-east-1")}}}
	cases := []struct {
		name string
		obj  *awsv1alpha1.DynamoDBTable
		d    *types.TableDescription
		want bool
	}{
		{"a member", joiner, member, false},
		{"a plain table made of the join", joiner, &types.TableDescription{TableStatus: types.TableStatusActive}, true},
		{"still CREATING", joiner, &types.TableDescription{TableStatus: types.TableStatusCreating}, false},
		{"no join asked", &awsv1alpha1.DynamoDBTable{}, &types.TableDescription{TableStatus: types.TableStatusActive}, false},
	}
	for _, c := range cases {
		if _, got := notJoined(ep, c.obj, c.d); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// CreateTableInput is the CreateTable call of a spec, with everything
// CreateTable accepts; TTL, point-in-time recovery and the rest have their
// own APIs and follow as update steps. tags are as for Desired.
func CreateTableInput(name string, spec *awsv1alpha1.DynamoDBTableSpec, tags map[string]string) *dynamodb.CreateTableInput {
	want := Desired(spec, tags)
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), KeySchema: awsKeySchema(specKeys(spec.KeySchema))}
	for _, a := range spec.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName), AttributeType: types.ScalarAttributeType(a.AttributeType)})
	}
	for _, ix := range want.GSIs {
		c := createIndexAction(ix)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: c.IndexName, KeySchema: c.KeySchema, Projection: c.Projection, ProvisionedThroughput: c.ProvisionedThroughput,
			OnDemandThroughput: c.OnDemandThroughput, WarmThroughput: c.WarmThroughput})
	}
	s := source{DynamoDBTableSpec: spec, tags: tags}
	for _, f := range features {
		if f.create != nil {
			f.create(s, want, in)
		}
	}
	return in
}

// createIndexAction is how an index is created, by CreateTable or by
// UpdateTable.
func createIndexAction(ix Index) *types.CreateGlobalSecondaryIndexAction {
	in := &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(ix.Name)}
	for _, f := range features {
		if f.createIndex != nil {
			f.createIndex(ix, in)
		}
	}
	return in
}

package dynamodb

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Create makes the table with everything CreateTable accepts; TTL and
// point-in-time recovery have their own APIs and follow as update steps.
func (p *Provider) Create(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) error {
	ep, err := p.endpointFor(ctx, obj)
	if err != nil {
		return err
	}
	if err := p.checkConflict(ctx, ep, obj); err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	in := createTableInput(name, &obj.Spec, p.wantedTags(ep, obj))
	out, err := ep.API.CreateTable(ctx, in)
	if errorCode(err) == "ResourceInUseException" {
		// Someone else made it since Observe: it is not this object's
		// table, which the next Observe says (NotOwned) unless the user
		// asks to adopt it.
		p.memoryOf(obj).createRefused = true
		return providers.Pending(time.Second, ReasonTableExists, "table %s appeared before Tether could create it; checking who owns it", name)
	}
	if err != nil {
		return classify(err)
	}
	p.memoryOf(obj).createRefused = false
	p.markCreated(ep, name, creation{UID: string(obj.UID), TableID: tableIdentity(out.TableDescription)})
	obj.Status.TableID = tableIdentity(out.TableDescription)
	recordStatus(obj, out.TableDescription)
	recordTarget(obj, ep)
	return nil
}

func createTableInput(name string, spec *awsv1alpha1.DynamoDBTableSpec, tags map[string]string) *dynamodb.CreateTableInput {
	want := desiredTable(spec, tags)
	in := &dynamodb.CreateTableInput{
		TableName:                 aws.String(name),
		KeySchema:                 awsKeySchema(specKeys(spec.KeySchema)),
		BillingMode:               types.BillingMode(want.BillingMode),
		ProvisionedThroughput:     awsProvisioned(want.Throughput),
		DeletionProtectionEnabled: spec.DeletionProtectionEnabled,
		TableClass:                types.TableClass(spec.TableClass),
	}
	for _, a := range spec.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName), AttributeType: types.ScalarAttributeType(a.AttributeType)})
	}
	for _, ix := range want.GSIs {
		c := createIndexAction(ix)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: c.IndexName, KeySchema: c.KeySchema, Projection: c.Projection, ProvisionedThroughput: c.ProvisionedThroughput})
	}
	for _, l := range spec.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName: aws.String(l.IndexName), KeySchema: awsKeySchema(specKeys(l.KeySchema)),
			Projection: awsProjectionOf(specProjection(l.Projection))})
	}
	if s := spec.StreamSpecification; s != nil {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(s.StreamViewType)}
	}
	if s := spec.SSESpecification; s != nil {
		in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(s.SSEEnabled)}
		if s.SSEEnabled {
			in.SSESpecification.SSEType = types.SSETypeKms
			if s.KMSMasterKeyID != "" {
				in.SSESpecification.KMSMasterKeyId = aws.String(s.KMSMasterKeyID)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want.Tags)) {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(want.Tags[k])})
	}
	return in
}

package dynamodb

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Create makes the table with everything CreateTable accepts (or, with
// spec.restoreFrom, by a restore); TTL, point-in-time recovery and the rest
// have their own APIs and follow as update steps.
func (c *tableConn) Create(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) error {
	p, ep := c.p, c.ep
	if pol, err := specPolicy(obj.Spec.ResourcePolicy); err == nil {
		if err := checkPolicyPrincipals(ep, obj, pol); err != nil {
			return err
		}
	}
	name := obj.ResolvedTableName()
	var (
		desc *types.TableDescription
		err  error
	)
	if obj.Spec.RestoreFrom != nil {
		desc, err = p.createByRestore(ctx, ep, obj)
	} else {
		var out *dynamodb.CreateTableOutput
		if out, err = ep.API.CreateTable(ctx, createTableInput(name, &obj.Spec, p.wantedTags(ep, obj))); err == nil {
			desc = out.TableDescription
		}
	}
	var exists *tableExistsError
	if errorCode(err) == "ResourceInUseException" || errors.As(err, &exists) {
		// Someone else made it since Observe: it is not this object's
		// table, which the next Observe says (NotOwned) unless the user
		// asks to adopt it.
		p.memoryOf(obj).createRefused = true
		return providers.Waitf(time.Second, ReasonTableExists, "table %s appeared before Tether could create it; checking who owns it", name)
	}
	if isTyped(err) {
		return err
	}
	if err != nil {
		return classify(err)
	}
	mem := p.memoryOf(obj)
	mem.createRefused = false
	if obj.Spec.ResourcePolicy != nil && obj.Spec.RestoreFrom == nil {
		mem.policyChange = &policyChange{anyDoc: true, at: time.Now()}
	}
	p.accepted(ep, name, p.tableFlight(callCreateTable, time.Now()))
	p.markCreated(ep, name, creation{UID: string(obj.UID), TableID: tableIdentity(desc)})
	obj.Status.TableID = tableIdentity(desc)
	recordStatus(obj, desc)
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
	in.OnDemandThroughput, in.WarmThroughput = want.OnDemand.createInput(), want.Warm.createInput()
	for i, ix := range want.GSIs {
		in.GlobalSecondaryIndexes[i].OnDemandThroughput, in.GlobalSecondaryIndexes[i].WarmThroughput = ix.OnDemand.createInput(), ix.Warm.createInput()
	}
	if pol, err := specPolicy(spec.ResourcePolicy); err == nil && pol != nil {
		in.ResourcePolicy = aws.String(pol.Text)
	}
	return in
}

// isTyped says whether err already says what the reconciler should do.
func isTyped(err error) bool {
	_, pending := providers.AsWait(err)
	_, retry := providers.AsRetryAfter(err)
	_, terminal := providers.AsTerminal(err)
	return pending || retry || terminal
}

package ddbgap_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// vectorIndex is a vector index of 8 dimensions on attribute emb, with
// tenant as its search schema's HASH attribute when search is set.
func vectorIndex(name string, search bool) types.VectorIndex {
	v := types.VectorIndex{IndexName: aws.String(name), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")},
		Dimensions: aws.Int64(8), DistanceFunction: types.VectorDistanceFunctionCosine, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
	if search {
		v.SearchSchema = []types.SearchSchemaElement{{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash}}
	}
	return v
}

func createVector(v types.VectorIndex) []types.VectorIndexUpdate {
	return []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: v.IndexName, VectorAttribute: v.VectorAttribute,
		Dimensions: v.Dimensions, DistanceFunction: v.DistanceFunction, Projection: v.Projection, SearchSchema: v.SearchSchema}}}
}

var (
	pkDef     = types.AttributeDefinition{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}
	tenantDef = types.AttributeDefinition{AttributeName: aws.String("tenant"), AttributeType: types.ScalarAttributeTypeS}
	pkKey     = []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
)

// Vector indexes, with AWS's own SDK: DynamoDB Local drops them (the
// model's reason to answer them); the model refuses what AWS refuses, as
// ExtendDB measured it (internal/ddbgap/vector.go), and takes an index
// through CREATING, backfilling and ACTIVE, and DELETING to gone.
func TestModelVectorIndexes(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{})
	ctx := context.Background()
	g := NewWithT(t)
	ddb := dynamodb.New(w.ddb.Options(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }) // each refusal as the model gave it

	// DynamoDB Local alone: accepted, dropped; an update "Nothing to update".
	cfg, err := config.LoadDefaultConfig(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	bare := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) })
	_, err = bare.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("vector-local"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{pkDef}, KeySchema: pkKey, VectorIndexes: []types.VectorIndex{vectorIndex("byEmb", false)}})
	g.Expect(err).NotTo(HaveOccurred())
	d, err := bare.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("vector-local")})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Table.VectorIndexes).To(BeEmpty(), "DynamoDB Local drops VectorIndexes")
	_, err = bare.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("vector-local"), VectorIndexUpdates: createVector(vectorIndex("byEmb", false))})
	g.Expect(err).To(MatchError(ContainSubstring("Nothing to update")))

	create := func(name string, billing types.BillingMode, defs []types.AttributeDefinition, vs ...types.VectorIndex) error {
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: billing, AttributeDefinitions: defs, KeySchema: pkKey, VectorIndexes: vs}
		if billing == types.BillingModeProvisioned {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		}
		_, err := ddb.CreateTable(ctx, in)
		return err
	}
	// CreateTable's refusals.
	w.expect(create("v-prov", types.BillingModeProvisioned, []types.AttributeDefinition{pkDef}, vectorIndex("byEmb", false)), "ValidationException")
	w.expect(create("v-typed", types.BillingModePayPerRequest, []types.AttributeDefinition{pkDef,
		{AttributeName: aws.String("emb"), AttributeType: types.ScalarAttributeTypeB}}, vectorIndex("byEmb", false)), "ValidationException")
	w.expect(create("v-untyped", types.BillingModePayPerRequest, []types.AttributeDefinition{pkDef}, vectorIndex("byTenant", true)), "ValidationException")
	var six []types.VectorIndex
	for i := range 6 {
		six = append(six, vectorIndex(fmt.Sprintf("byEmb%d", i), false))
	}
	w.expect(create("v-six", types.BillingModePayPerRequest, []types.AttributeDefinition{pkDef}, six...), "ValidationException")

	// Accepted: the search schema's attribute kept, CREATING, then
	// backfilling, then ACTIVE.
	const table = "vectors"
	g.Expect(create(table, types.BillingModePayPerRequest, []types.AttributeDefinition{pkDef, tenantDef}, vectorIndex("byTenant", true))).To(Succeed())
	describe := func() *types.TableDescription {
		t.Helper()
		out, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}
	state := func(name string) string {
		for _, v := range describe().VectorIndexes {
			if aws.ToString(v.IndexName) == name {
				return fmt.Sprintf("%s/%v", v.IndexStatus, aws.ToBool(v.Backfilling))
			}
		}
		return "absent"
	}
	first := describe().VectorIndexes
	g.Expect(first).To(HaveLen(1))
	g.Expect(first[0].IndexStatus).To(Equal(types.IndexStatusCreating))
	g.Expect(aws.ToString(first[0].SearchSchema[0].AttributeName)).To(Equal("tenant"))
	g.Expect(describe().AttributeDefinitions).To(HaveLen(2), "AWS keeps the search schema's attribute definition")
	update := func(u []types.VectorIndexUpdate, defs ...types.AttributeDefinition) error {
		_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), VectorIndexUpdates: u, AttributeDefinitions: defs})
		return err
	}
	deleteVector := []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("byTenant")}}}
	w.expect(update(deleteVector), "ResourceInUseException")                                // CREATING, not yet backfilling
	w.expect(update(createVector(vectorIndex("byTenant", true))), "ResourceInUseException") // the name, still CREATING
	g.Eventually(func() string { return state("byTenant") }, 5*time.Second, 50*time.Millisecond).Should(Equal("CREATING/true"))
	g.Eventually(func() string { return state("byTenant") }, 5*time.Second, 50*time.Millisecond).Should(Equal("ACTIVE/false"))
	w.expect(update(createVector(vectorIndex("byTenant", true))), "ValidationException") // the name, ACTIVE

	// UpdateTable's refusals, then four more indexes and a sixth refused.
	two := append(createVector(vectorIndex("byEmbA", false)), createVector(vectorIndex("byEmbB", false))...)
	w.expect(update(two), "ValidationException")
	w.expect(update(createVector(vectorIndex("byEmbA", false)), types.AttributeDefinition{AttributeName: aws.String("emb"), AttributeType: types.ScalarAttributeTypeB}), "ValidationException")
	_, err = ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	w.expect(err, "ValidationException")
	g.Expect(err).To(MatchError(ContainSubstring("only supported for PAY_PER_REQUEST tables")))
	for i := range 4 {
		g.Expect(update(createVector(vectorIndex(fmt.Sprintf("byEmb%d", i), false)))).To(Succeed())
	}
	w.expect(update(createVector(vectorIndex("byEmb4", false))), "LimitExceededException")

	// Deleted: DELETING, then gone.
	g.Expect(update(deleteVector)).To(Succeed())
	g.Expect(state("byTenant")).To(Equal("DELETING/false"))
	g.Eventually(func() string { return state("byTenant") }, 5*time.Second, 50*time.Millisecond).Should(Equal("absent"))
}

package awstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
)

// vectorTransition is how long the model keeps a vector index CREATING,
// then backfilling, and DELETING once the test lets it go
// (ddbgap's HoldVectorIndexes keeps each state while the test looks at
// it): several of the adapter's looks
// (TransitionPoll, 500 ms), so that a step sent while AWS is still
// building or removing an index would be seen.
const vectorTransition = 2 * time.Second

// vectorIndexOn adds a vector index of 8 dimensions on attribute emb; with
// search, its search schema partitions it by tenant (defined as S).
func vectorIndexOn(name string, search bool) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		v := awsv1alpha1.VectorIndex{IndexName: name, VectorAttribute: awsv1alpha1.VectorAttribute{AttributeName: "emb"},
			Dimensions: 8, DistanceFunction: awsv1alpha1.VectorDistanceCosine}
		if search {
			v.SearchSchema = []awsv1alpha1.VectorSearchSchemaElement{{AttributeName: "tenant", Type: "HASH"}}
			o.Spec.AttributeDefinitions = append(o.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: "tenant", AttributeType: "S"})
		}
		o.Spec.VectorIndexes = append(o.Spec.VectorIndexes, v)
	}
}

// vectorStates is the status's vector indexes, "name:STATUS[+backfilling]"
// joined by spaces.
func vectorStates(o *awsv1alpha1.DynamoDBTable) string {
	var out []string
	for _, v := range o.Status.VectorIndexes {
		s := v.IndexName + ":" + v.IndexStatus
		if v.Backfilling {
			s += "+backfilling"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// MODEL (DynamoDB Local has no vector indexes: it drops them,
// internal/ddbgap/vector_test.go): a table created with a vector index is
// Ready only once AWS reports it ACTIVE, its CREATING and backfilling in
// the status meanwhile, and CreateTable carried it (no UpdateTable); an
// index added by the spec is one UpdateTable, and one removed by the spec
// is one more, each waited out (nothing sent again while AWS builds or
// removes it); and a PROVISIONED spec is refused by the API server.
func TestDynamoDBTableVectorIndexesOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-vector", ddbgap.Options{Transition: vectorTransition})
	updates := func() int { return w.gap.Calls("UpdateTable") }
	obj := w.table("vector", vectorIndexOn("byTenant", true))
	// Each transition is held until the test has seen it (AWS takes
	// minutes), then let go.
	release := w.gap.HoldVectorIndexes()
	s.Create(t, obj)

	var creating *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		creating = s.Get(g, obj)
		return vectorStates(creating)
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(HavePrefix("byTenant:CREATING"))
	g.Expect(ctrltest.Condition(creating, "Ready")).NotTo(HavePrefix("True"), "not Ready while the vector index is CREATING")
	release()
	ready := s.EventuallyReady(t, obj)
	g.Expect(vectorStates(ready)).To(Equal("byTenant:ACTIVE"))
	g.Expect(ready.Status.VectorIndexes[0].ItemCount).To(Equal(aws.Int64(0)))
	g.Expect(ready.Status.PendingPlan).To(BeEmpty())
	g.Expect(w.gap.Calls("CreateTable")).To(Equal(1))
	g.Expect(updates()).To(Equal(0), "CreateTable carried the vector index")
	describe := func() *awsdynamodb.DescribeTableOutput {
		out, err := w.raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(obj.Spec.TableName)})
		g.Expect(err).NotTo(HaveOccurred())
		return out
	}
	g.Expect(describe().Table.VectorIndexes).To(HaveLen(1))
	g.Expect(aws.ToString(describe().Table.VectorIndexes[0].SearchSchema[0].AttributeName)).To(Equal("tenant"))

	// Added by the spec: one UpdateTable, not Ready until ACTIVE, nothing
	// sent while AWS builds it.
	release = w.gap.HoldVectorIndexes()
	s.update(t, obj, vectorIndexOn("byEmb", false))
	g.Eventually(func(g Gomega) string { return vectorStates(s.Get(g, obj)) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).
		Should(ContainSubstring("byEmb:CREATING"))
	g.Consistently(func(g Gomega) {
		g.Expect(updates()).To(Equal(1))
		g.Expect(ctrltest.Condition(s.Get(g, obj), "Ready")).NotTo(HavePrefix("True"))
	}, 2*vectorTransition, ctrltest.DDBPoll).Should(Succeed(), "one UpdateTable, and not Ready, while AWS builds the index")
	release()
	ready = s.EventuallyReady(t, obj)
	g.Expect(vectorStates(ready)).To(Equal("byEmb:ACTIVE byTenant:ACTIVE"))
	g.Expect(updates()).To(Equal(1), "one UpdateTable for the index, none again while AWS built it")

	// Removed by the spec: one UpdateTable, DELETING waited out.
	release = w.gap.HoldVectorIndexes()
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.VectorIndexes = o.Spec.VectorIndexes[1:]
		o.Spec.AttributeDefinitions = o.Spec.AttributeDefinitions[:1]
	})
	g.Eventually(func(g Gomega) string { return vectorStates(s.Get(g, obj)) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).
		Should(ContainSubstring("byTenant:DELETING"))
	release()
	g.Eventually(func(g Gomega) string {
		o := s.Get(g, obj)
		return vectorStates(o) + "|" + ctrltest.Condition(o, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("byEmb:ACTIVE|True/Available"))
	g.Expect(describe().Table.VectorIndexes).To(HaveLen(1))
	g.Expect(aws.ToString(describe().Table.VectorIndexes[0].IndexName)).To(Equal("byEmb"))
	g.Consistently(updates, 2*vectorTransition, ctrltest.DDBPoll).Should(Equal(2), "one UpdateTable for the removal, nothing after")

	// PROVISIONED with vector indexes: refused by the API server, nothing
	// sent.
	cur := s.Get(g, obj)
	cur.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
	cur.Spec.ProvisionedThroughput = ddbCapacity(1, 1)
	g.Expect(s.Client.Update(context.Background(), cur)).To(MatchError(ContainSubstring("vectorIndexes need billingMode PAY_PER_REQUEST")))
	g.Expect(updates()).To(Equal(2))
}

// REAL PEER (DynamoDB Local 3.3.1 itself) and the MODEL answering as it
// does (ddbgap.Options.WithoutVectorIndexes, to count the calls): DynamoDB
// Local accepts CreateTable's vector index and drops it, so the index
// never appears in DescribeTable; Tether asks for it once more by
// UpdateTable, which DynamoDB Local answers "Nothing to update", and then
// says the endpoint does not support vector indexes (UnsupportedByEndpoint)
// rather than Ready, and sends nothing more. With a search schema,
// DynamoDB Local refuses the table (its attribute definitions must all be
// keys): the same reason, no table.
func TestDynamoDBTableVectorIndexesOnDynamoDBLocal(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	s.EnsureNamespace(t, "team-vector-local")
	local := ctrltest.NewTable("team-vector-local", ctrltest.TableName("vector-local"), vectorIndexOn("byEmb", false))
	s.Create(t, local)
	refused := s.eventuallySynced(t, local, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support vector indexes (index byEmb)"))
	g.Expect(ctrltest.Condition(refused, "Ready")).NotTo(HavePrefix("True"))
	g.Expect(refused.Status.VectorIndexes).To(BeEmpty())
	g.Expect(s.describe(g, local.Name).Table.VectorIndexes).To(BeEmpty(), "DynamoDB Local dropped the index")

	// With a search schema, DynamoDB Local refuses the table itself (its
	// attribute definitions must all be keys): no table, the same reason.
	searched := ctrltest.NewTable("team-vector-local", ctrltest.TableName("vector-local-search"), vectorIndexOn("byTenant", true))
	s.Create(t, searched)
	refused = s.eventuallySynced(t, searched, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support vector indexes (index byTenant)"))
	g.Expect(s.tableExists(t, searched.Name)).To(BeFalse())

	w := s.modelWorld(t, "team-vector-asl", ddbgap.Options{WithoutVectorIndexes: true})
	obj := w.table("vector-asl", vectorIndexOn("byEmb", false))
	s.Create(t, obj)
	s.eventuallySynced(t, obj, "False/UnsupportedByEndpoint")
	g.Expect(w.gap.Calls("CreateTable")).To(Equal(1))
	g.Consistently(func() int { return w.gap.Calls("UpdateTable") }, "3s", ctrltest.DDBPoll).Should(Equal(1), "one UpdateTable, not one per look")
	g.Expect(ctrltest.Condition(s.Get(g, obj), "Ready")).NotTo(HavePrefix("True"))
}

// MODEL: a table adopted with a vector index of the spec's name but another
// definition (AWS has no update of a vector index) stops with
// VectorIndexMismatch naming what differs, sends no UpdateTable (neither a
// delete of an index searches may rely on nor a create), and a new name in
// the spec then deletes the old index and creates the new one, one call
// each (deletes go first: they are legal whatever the count of indexes).
func TestDynamoDBTableVectorIndexMismatchOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.modelWorld(t, "team-vector-adopt", ddbgap.Options{})
	g.Eventually(func(g Gomega) {
		a := &awsv1alpha1.AWSAccount{}
		g.Expect(s.Client.Get(ctx, client.ObjectKey{Name: w.account}, a)).To(Succeed())
		a.Spec.Tenancy.AdoptionNamespaces.Names = []string{w.ns}
		g.Expect(s.Client.Update(ctx, a)).To(Succeed())
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	name := ctrltest.TableName("vector-adopted")
	_, err := w.raw.CreateTable(ctx, &awsdynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{{IndexName: aws.String("byEmb"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")},
			Dimensions: aws.Int64(16), DistanceFunction: types.VectorDistanceFunctionCosine, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	g.Expect(err).NotTo(HaveOccurred())

	obj := w.table("vector-adopted", vectorIndexOn("byEmb", false), func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true"}
		o.Spec.TableName = name
	})
	s.Create(t, obj)
	blocked := s.eventuallySynced(t, obj, "False/VectorIndexMismatch")
	g.Expect(meta.FindStatusCondition(blocked.Status.Conditions, "Synced").Message).To(ContainSubstring("vector index byEmb differs in its dimensions"))
	g.Expect(ctrltest.Condition(blocked, "Ready")).NotTo(HavePrefix("True"))
	g.Consistently(func() int { return w.gap.Calls("UpdateTable") }, "2s", ctrltest.DDBPoll).Should(BeZero(), "nothing sent")

	// A new name: the old index deleted, the new one created.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.VectorIndexes[0].IndexName = "byEmb8" })
	g.Eventually(func(g Gomega) string {
		o := s.Get(g, obj)
		return vectorStates(o) + "|" + ctrltest.Condition(o, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("byEmb8:ACTIVE|True/Available"))
	g.Expect(w.gap.Calls("UpdateTable")).To(Equal(2))
}

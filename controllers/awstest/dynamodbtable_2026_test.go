package awstest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
)

// Issue 40's features (DynamoDB as AWS ships it in 2026) through the real
// reconciler, API server and SDK clients. Where DynamoDB Local does not
// answer, they run on the MODEL internal/ddbgap (AWS's documented rules,
// each cited there) in front of DynamoDB Local, in an AWSAccount whose
// endpoint is the model; each test says which.

// modelWorld is a namespace whose AWSAccount (role A) reaches the model,
// and a client of the model acting as that account behind Tether's back.
type modelWorld struct {
	ns, account string
	gap         *ddbgap.Server
	raw         *awsdynamodb.Client
}

func (s *ddbSuite) modelWorld(t *testing.T, prefix string, opts ddbgap.Options) *modelWorld {
	t.Helper()
	gap := ddbgap.New(s.Local, opts)
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	w := &modelWorld{ns: ctrltest.TableName(prefix), account: ctrltest.TableName(prefix + "-account"), gap: gap}
	s.createNamespace(t, w.ns, nil, nil)
	s.CreateAccount(t, w.account, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{w.ns}
		a.Spec.Endpoint = url
	})
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(ctrltest.KeyA, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	w.raw = awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(url) })
	return w
}

// table is a DynamoDBTable of the world's namespace and account.
func (w *modelWorld) table(name string, mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	return ctrltest.NewTable(w.ns, name, append([]func(*awsv1alpha1.DynamoDBTable){func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName(name)
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.account}
	}}, mutate...)...)
}

// eventsNoting counts the events of obj whose note has words in it, each
// repeat of an event counted.
func (s *ddbSuite) eventsNoting(g Gomega, obj *awsv1alpha1.DynamoDBTable, words string) int {
	list := &eventsv1.EventList{}
	g.Expect(s.Client.List(context.Background(), list, client.InNamespace(obj.Namespace))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Name != obj.Name || !strings.Contains(e.Note, words) {
			continue
		}
		n++
		if e.Series != nil {
			n += int(e.Series.Count) - 1
		}
	}
	return n
}

// insights is what the model reports of a table's ("") or index's
// contributor insights.
func (w *modelWorld) insights(g Gomega, table, index string) *awsdynamodb.DescribeContributorInsightsOutput {
	in := &awsdynamodb.DescribeContributorInsightsInput{TableName: aws.String(table)}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	out, err := w.raw.DescribeContributorInsights(context.Background(), in)
	g.Expect(err).NotTo(HaveOccurred())
	return out
}

// MODEL (DynamoDB Local has no contributor insights): the mode of the
// table's and an index's contributor insights is set, then changed by an
// ENABLE with the new mode; over the account's quota of rules AWS reports
// FAILED, and Tether says so with AWS's reason instead of enabling them
// again and again; the user's change of the spec is the next try.
func TestDynamoDBTableContributorInsightsModeOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	// Two rules: THROTTLED_KEYS on a table and an index without sort keys
	// take one each (internal/ddbgap/insights.go).
	w := s.modelWorld(t, "team-insights", ddbgap.Options{InsightsRules: 2})
	throttled := &awsv1alpha1.ContributorInsightsSpecification{Enabled: true, Mode: awsv1alpha1.ContributorInsightsThrottled}
	obj := w.table("insights", ddbGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ContributorInsightsSpecification = throttled
		o.Spec.GlobalSecondaryIndexes[0].ContributorInsightsSpecification = throttled
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	for _, index := range []string{"", "byCustomer"} {
		d := w.insights(g, obj.Spec.TableName, index)
		g.Expect(d.ContributorInsightsStatus).To(Equal(types.ContributorInsightsStatusEnabled), "index %q", index)
		g.Expect(d.ContributorInsightsMode).To(Equal(types.ContributorInsightsModeThrottledKeys), "index %q", index)
	}

	// ACCESSED_AND_THROTTLED_KEYS takes two rules: one more than the quota.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ContributorInsightsSpecification = &awsv1alpha1.ContributorInsightsSpecification{
			Enabled: true, Mode: awsv1alpha1.ContributorInsightsAccessedAndThrottled}
	})
	var failed *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		failed = s.Get(g, obj)
		return ctrltest.Condition(failed, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/ContributorInsightsFailed"))
	ready := meta.FindStatusCondition(failed.Status.Conditions, "Ready")
	g.Expect(ready.Message).To(ContainSubstring("contributor insights on the table FAILED (LimitExceededException"))
	g.Expect(ctrltest.Condition(failed, "Synced")).To(Equal("True/Success"), "nothing failed on Tether's side")
	g.Expect(w.insights(g, obj.Spec.TableName, "").ContributorInsightsStatus).To(Equal(types.ContributorInsightsStatusFailed))
	g.Expect(w.insights(g, obj.Spec.TableName, "byCustomer").ContributorInsightsStatus).To(Equal(types.ContributorInsightsStatusEnabled))
	g.Consistently(func(g Gomega) int { return s.eventsNoting(g, obj, "(ACCESSED_AND_THROTTLED_KEYS) on the table") }, "2s", ctrltest.DDBPoll).
		Should(Equal(1), "one ENABLE for the generation, not one per look")

	// Back within the quota: the spec change is the user's "try again".
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.ContributorInsightsSpecification = throttled })
	s.EventuallyReady(t, obj)
	g.Expect(w.insights(g, obj.Spec.TableName, "").ContributorInsightsMode).To(Equal(types.ContributorInsightsModeThrottledKeys))
}

// multiKeyIndex is an index keyed by two HASH attributes (strings) and two
// RANGE attributes (numbers), each defined on the table.
func multiKeyIndex(name string, attrs ...string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		g := awsv1alpha1.GlobalSecondaryIndex{IndexName: name}
		for i, a := range attrs {
			kt, at := "HASH", "S"
			if i >= 2 {
				kt, at = "RANGE", "N"
			}
			g.KeySchema = append(g.KeySchema, awsv1alpha1.KeySchemaElement{AttributeName: a, KeyType: kt})
			o.Spec.AttributeDefinitions = append(o.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: a, AttributeType: at})
		}
		o.Spec.GlobalSecondaryIndexes = append(o.Spec.GlobalSecondaryIndexes, g)
	}
}

// indexKeys is the key of an index as DynamoDB describes it, "a/HASH b/RANGE".
func indexKeys(out *awsdynamodb.DescribeTableOutput, index string) string {
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index {
			var keys []string
			for _, k := range g.KeySchema {
				keys = append(keys, aws.ToString(k.AttributeName)+"/"+string(k.KeyType))
			}
			return strings.Join(keys, " ")
		}
	}
	return ""
}

// attributeTypes is a table's attribute definitions as DynamoDB describes
// them, "name:type" sorted.
func attributeTypes(out *awsdynamodb.DescribeTableOutput) string {
	var defs []string
	for _, d := range out.Table.AttributeDefinitions {
		defs = append(defs, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	slices.Sort(defs)
	return strings.Join(defs, " ")
}

// MODEL for AWS (DynamoDB Local 1.25.1 has no multi-attribute keys; the
// model gives it the first HASH and RANGE attribute and describes the whole
// key, as AWS does, internal/ddbgap/multikeys.go), REAL PEER for the refusal
// (DynamoDB Local itself). It proves that Tether sends an index's whole
// multi-attribute key, in the spec's order and with each attribute's type,
// by CreateTable and by an index create (the model describes what was sent),
// and reads it back without false drift (Ready, nothing pending: the ordered
// key and the S and N types compare equal); that the same attributes in
// another order are another index, not replaced without the annotation and
// nothing sent; and that on an endpoint without the feature (DynamoDB Local)
// the table says so (UnsupportedByEndpoint, Stalled), is never Ready, and no
// table is left behind.
func TestDynamoDBTableMultiAttributeIndexKeys(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-keys", ddbgap.Options{})
	obj := w.table("keys", multiKeyIndex("byTenant", "tenant", "region", "day", "seq"))
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	describe := func() *awsdynamodb.DescribeTableOutput {
		out, err := w.raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(obj.Spec.TableName)})
		g.Expect(err).NotTo(HaveOccurred())
		return out
	}
	g.Expect(indexKeys(describe(), "byTenant")).To(Equal("tenant/HASH region/HASH day/RANGE seq/RANGE"))
	g.Expect(attributeTypes(describe())).To(Equal("day:N pk:S region:S seq:N tenant:S"))

	s.update(t, obj, multiKeyIndex("byShop", "shop", "till", "at", "n"))
	ready := s.EventuallyReady(t, obj)
	g.Expect(ready.Status.PendingPlan).To(BeEmpty())
	g.Expect(ctrltest.Condition(ready, "Synced")).To(Equal("True/Success"))
	g.Expect(indexKeys(describe(), "byShop")).To(Equal("shop/HASH till/HASH at/RANGE n/RANGE"))
	g.Expect(attributeTypes(describe())).To(Equal("at:N day:N n:N pk:S region:S seq:N shop:S tenant:S till:S"))

	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		k := o.Spec.GlobalSecondaryIndexes[0].KeySchema
		k[0], k[1] = k[1], k[0]
	})
	blocked := s.eventuallySynced(t, obj, "False/IndexReplacementNotAllowed")
	g.Expect(meta.FindStatusCondition(blocked.Status.Conditions, "Synced").Message).To(ContainSubstring("byTenant changed its key schema"))
	g.Expect(indexKeys(describe(), "byTenant")).To(Equal("tenant/HASH region/HASH day/RANGE seq/RANGE"), "nothing sent")

	s.EnsureNamespace(t, "team-keys-local")
	local := ctrltest.NewTable("team-keys-local", ctrltest.TableName("keys-local"), multiKeyIndex("byTenant", "tenant", "region", "day", "seq"))
	s.Create(t, local)
	refused := s.eventuallySynced(t, local, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support global secondary index keys of more than one HASH or RANGE attribute (index byTenant)"))
	g.Expect(ctrltest.Condition(refused, "Ready")).NotTo(HavePrefix("True"))
	g.Expect(s.tableExists(t, local.Name)).To(BeFalse())

	// The same index added to a table DynamoDB Local has: refused by the
	// UpdateTable, the table stays as it was.
	later := ctrltest.NewTable("team-keys-local", ctrltest.TableName("keys-later"))
	s.Create(t, later)
	s.EventuallyReady(t, later)
	s.update(t, later, multiKeyIndex("byTenant", "tenant", "region", "day", "seq"))
	refused = s.eventuallySynced(t, later, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support global secondary index keys of more than one HASH or RANGE attribute (index byTenant)"))
	g.Expect(s.describe(g, later.Name).Table.GlobalSecondaryIndexes).To(BeEmpty())
}

// kinesisTransition is how long the model keeps a Kinesis destination
// ENABLING, UPDATING, DISABLING (and ENABLING before ENABLE_FAILED): several
// of the adapter's looks (TransitionPoll, 500 ms), so that a resend or a
// step planned while AWS is still applying a change would be seen.
const kinesisTransition = 2 * time.Second

// kinesisState is the destination the status shows, as "STATUS PRECISION",
// "" when none.
func kinesisState(o *awsv1alpha1.DynamoDBTable) string {
	d := o.Status.KinesisStreamingDestination
	if d == nil {
		return ""
	}
	return d.DestinationStatus + " " + d.ApproximateCreationDateTimePrecision
}

// MODEL (DynamoDB Local has no Kinesis streaming destinations: it answers
// UnknownOperationException, internal/ddbgap/kinesis_test.go): the
// destination is enabled, its state shown in the status, and ENABLING is
// AWS still applying the ENABLE (not Ready, no step planned, nothing sent
// again); its precision is changed; a stream in another Region is
// accepted and then ENABLE_FAILED, which Tether names with AWS's reason
// and does not enable again for that generation; the spec's next change
// is the next try; removed from the spec, the destination Tether enabled
// is disabled.
func TestDynamoDBTableKinesisStreamingDestinationOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-kinesis", ddbgap.Options{Transition: kinesisTransition})
	const stream = "arn:aws:kinesis:us-east-1:111122223333:stream/orders"    // the table's Region
	const elsewhere = "arn:aws:kinesis:eu-west-1:111122223333:stream/orders" // another Region: ENABLE_FAILED
	calls := func(op string) func() int {
		return func() int { return w.gap.Calls(op + "KinesisStreamingDestination") }
	}
	obj := w.table("kinesis", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.KinesisStreamingDestination = &awsv1alpha1.KinesisStreamingDestination{StreamArn: stream}
	})
	// The model holds each transition until the test has seen it: a look
	// comes about a second after a write, and a loaded machine can make
	// it later than the 2 s transition.
	release := w.gap.HoldKinesisDestinations()
	s.Create(t, obj)

	// Not drift while ENABLING: shown, not Ready, nothing planned.
	var enabling *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		enabling = s.Get(g, obj)
		return kinesisState(enabling)
	}, ctrltest.DDBTimeout, 20*time.Millisecond).Should(HavePrefix("ENABLING"))
	g.Expect(ctrltest.Condition(enabling, "Ready")).NotTo(HavePrefix("True"))
	g.Expect(enabling.Status.PendingPlan).To(BeEmpty(), "ENABLING counts as on: no step is planned")
	g.Expect(enabling.Status.ManagedKinesisStreamArn).To(Equal(stream))
	release()
	s.EventuallyReady(t, obj)
	g.Expect(kinesisState(s.Get(g, obj))).To(Equal("ACTIVE MILLISECOND"))
	g.Expect(calls("Enable")()).To(Equal(1), "one ENABLE, not one per look while ENABLING")

	// The precision: one UPDATE, UPDATING waited out.
	release = w.gap.HoldKinesisDestinations()
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.KinesisStreamingDestination.ApproximateCreationDateTimePrecision = awsv1alpha1.KinesisPrecisionMicrosecond
	})
	g.Eventually(func(g Gomega) string { return kinesisState(s.Get(g, obj)) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("UPDATING MICROSECOND"))
	release()
	s.EventuallyReady(t, obj)
	g.Expect(kinesisState(s.Get(g, obj))).To(Equal("ACTIVE MICROSECOND"))
	g.Expect(calls("Update")()).To(Equal(1))

	// Another stream: the live one is disabled first, then the new one is
	// enabled, accepted, and fails.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.KinesisStreamingDestination = &awsv1alpha1.KinesisStreamingDestination{StreamArn: elsewhere}
	})
	var failed *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		failed = s.Get(g, obj)
		return ctrltest.Condition(failed, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/KinesisStreamingFailed"))
	ready := meta.FindStatusCondition(failed.Status.Conditions, "Ready")
	g.Expect(ready.Message).To(ContainSubstring("ENABLE_FAILED (the model: Kinesis data stream " + elsewhere + " is not in the table's Region us-east-1)"))
	g.Expect(ctrltest.Condition(failed, "Synced")).To(Equal("True/Success"), "nothing failed on Tether's side")
	g.Expect(failed.Status.KinesisStreamingDestination.StreamArn).To(Equal(elsewhere))
	g.Expect(failed.Status.KinesisStreamingDestination.DestinationStatus).To(Equal("ENABLE_FAILED"))
	g.Expect(calls("Disable")()).To(Equal(1), "the live destination disabled before the new one")
	g.Consistently(calls("Enable"), 3*kinesisTransition, ctrltest.DDBPoll).Should(Equal(2), "one ENABLE for the generation, not one per look")

	// The spec's change is the next try.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.KinesisStreamingDestination = &awsv1alpha1.KinesisStreamingDestination{StreamArn: stream}
	})
	s.EventuallyReady(t, obj)
	g.Expect(kinesisState(s.Get(g, obj))).To(Equal("ACTIVE MILLISECOND"), "enabled anew: AWS's default precision")
	g.Expect(calls("Enable")()).To(Equal(3))

	// Removed from the spec: the destination Tether enabled is disabled.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.KinesisStreamingDestination = nil })
	g.Eventually(func(g Gomega) string {
		o := s.Get(g, obj)
		return o.Status.ManagedKinesisStreamArn + "|" + kinesisState(o) + "|" + ctrltest.Condition(o, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(HavePrefix("||True"))
	out, err := w.raw.DescribeKinesisStreamingDestination(context.Background(), &awsdynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(obj.Spec.TableName)})
	g.Expect(err).NotTo(HaveOccurred())
	for _, d := range out.KinesisDataStreamDestinations {
		g.Expect(d.DestinationStatus).To(BeElementOf(types.DestinationStatusDisabled, types.DestinationStatusEnableFailed), "no live destination left: %s", aws.ToString(d.StreamArn))
	}
	g.Expect(calls("Disable")()).To(Equal(2))
}

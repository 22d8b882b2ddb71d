package awstest

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/reconciler"
)

func TestDynamoDBTableCreateUpdateDelete(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("orders")
	obj := ctrltest.NewTable("default", name, ddbGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
		o.Spec.Tags = map[string]string{"team": "checkout"}
	})
	s.Create(t, obj)
	ready := s.EventuallyReady(t, obj)
	// DynamoDB Local has no tagging: the table is managed all the same, and
	// the status and an event say what is left out.
	g.Expect(ready.Status.UnsupportedFeatures).To(Equal([]string{"tags"}))
	g.Expect(meta.FindStatusCondition(ready.Status.Conditions, commonv1alpha1.Ready).Message).To(ContainSubstring("does not support spec.tags"))
	g.Eventually(func(g Gomega) []string { return s.eventReasons(g, obj) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ContainElement("FeatureUnsupported"))
	g.Expect(ready.Status.TableName).To(Equal(name))
	g.Expect(ready.Status.TableStatus).To(Equal("ACTIVE"))
	g.Expect(ready.Status.LatestStreamArn).NotTo(BeEmpty())
	g.Expect(ready.Status.GlobalSecondaryIndexes).To(HaveLen(1))

	// Two new indexes in one apply: sent one per call, both end up there.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		ddbGSI("byStatus", "status", nil)(o)
		ddbGSI("byRegion", "region", nil)(o)
	})
	s.EventuallyReady(t, obj)
	names := indexNamesOf(s.describe(g, name))
	slices.Sort(names)
	g.Expect(names).To(Equal([]string{"byCustomer", "byRegion", "byStatus"}))

	// Billing switch to PROVISIONED with indexes present, then remove one.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = ddbCapacity(5, 5)
		o.Spec.GlobalSecondaryIndexes = o.Spec.GlobalSecondaryIndexes[:2]
		o.Spec.AttributeDefinitions = slices.DeleteFunc(o.Spec.AttributeDefinitions,
			func(a awsv1alpha1.AttributeDefinition) bool { return a.AttributeName == "region" })
		for i := range o.Spec.GlobalSecondaryIndexes {
			o.Spec.GlobalSecondaryIndexes[i].ProvisionedThroughput = ddbCapacity(2, 2)
		}
		o.Spec.StreamSpecification = nil
		o.Spec.TimeToLiveSpecification.Enabled = false
	})
	ready = s.EventuallyReady(t, obj)
	d := s.describe(g, name).Table
	g.Expect(d.BillingModeSummary.BillingMode).To(Equal(types.BillingModeProvisioned))
	g.Expect(aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits)).To(Equal(int64(5)))
	g.Expect(d.GlobalSecondaryIndexes).To(HaveLen(2))
	g.Expect(d.StreamSpecification == nil || !aws.ToBool(d.StreamSpecification.StreamEnabled)).To(BeTrue(), "stream still on")
	g.Expect(ready.Status.PendingPlan).To(BeEmpty())
	ttl, err := s.Raw.DescribeTimeToLive(context.Background(), &awsdynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ttl.TimeToLiveDescription.TimeToLiveStatus).To(Equal(types.TimeToLiveStatusDisabled))

	// And back to PAY_PER_REQUEST.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModePayPerRequest
		o.Spec.ProvisionedThroughput = nil
		for i := range o.Spec.GlobalSecondaryIndexes {
			o.Spec.GlobalSecondaryIndexes[i].ProvisionedThroughput = nil
		}
	})
	s.EventuallyReady(t, obj)
	g.Expect(s.describe(g, name).Table.BillingModeSummary.BillingMode).To(Equal(types.BillingModePayPerRequest))

	g.Expect(s.Client.Delete(context.Background(), obj)).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tableExists(t, name)).To(BeFalse(), "table left behind")
}

// Drift behind Tether's back is put back at the next poll.
func TestDynamoDBTableDriftIsCorrected(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("drift")
	obj := ctrltest.NewTable("default", name, ddbGSI("byCustomer", "customer", ddbCapacity(1, 1)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "2s"}
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = ddbCapacity(5, 5)
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)

	ctx := context.Background()
	_, err := s.Raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(name),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(9)}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = s.Raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(name),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byCustomer")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = s.Raw.UpdateTimeToLive(ctx, &awsdynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(false)}})
	g.Expect(err).NotTo(HaveOccurred())

	g.Eventually(func(g Gomega) {
		d := s.describe(g, name).Table
		g.Expect(aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits)).To(Equal(int64(5)))
		g.Expect(indexNamesOf(&awsdynamodb.DescribeTableOutput{Table: d})).To(Equal([]string{"byCustomer"}))
		ttl, err := s.Raw.DescribeTimeToLive(ctx, &awsdynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ttl.TimeToLiveDescription.TimeToLiveStatus).To(Equal(types.TimeToLiveStatusEnabled))
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	g.Eventually(func(g Gomega) []string { return s.eventReasons(g, obj) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ContainElement(reconciler.ReasonDriftCorrected))
	s.EventuallyReady(t, obj)
}

func TestDynamoDBTableDeletedOutOfBandIsRecreated(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("oob")
	obj := ctrltest.NewTable("default", name, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "2s"}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	_, err := s.Raw.DeleteTable(context.Background(), &awsdynamodb.DeleteTableInput{TableName: aws.String(name)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) []string { return s.eventReasons(g, obj) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ContainElement("TableDeleted"))
	g.Eventually(func() bool { return s.tableExists(t, name) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeTrue())
	s.EventuallyReady(t, obj)
}

func TestDynamoDBTableDeletionProtectionBlocksDelete(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("protected")
	obj := ctrltest.NewTable("default", name, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.DeletionProtectionEnabled = aws.Bool(true)
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	g.Expect(s.Client.Delete(context.Background(), obj)).To(Succeed())

	blocked := s.eventuallySynced(t, obj, "False/DeletionProtected")
	g.Expect(conditionMessage(blocked, "Synced")).To(ContainSubstring("spec.deletionProtectionEnabled: false"))
	g.Expect(s.tableExists(t, name)).To(BeTrue())

	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DeletionProtectionEnabled = aws.Bool(false) })
	s.eventuallyGone(t, obj)
	g.Expect(s.tableExists(t, name)).To(BeFalse())
}

func TestDynamoDBTableRetainLeavesTheTable(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("retained")
	obj := ctrltest.NewTable("default", name, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyRetain })
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	g.Expect(s.Client.Delete(context.Background(), obj)).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tableExists(t, name)).To(BeTrue(), "Retain deleted the table")
}

func TestDynamoDBTableAdoptsOnlyWhenAsked(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("foreign")
	_, err := s.Raw.CreateTable(context.Background(), &awsdynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	g.Expect(err).NotTo(HaveOccurred())

	obj := ctrltest.NewTable("default", name)
	s.Create(t, obj)
	s.eventuallySynced(t, obj, "False/NotOwned")

	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true"}
	})
	s.EventuallyReady(t, obj)
	g.Eventually(func(g Gomega) []string { return s.eventReasons(g, obj) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ContainElement("Adopted"))
}

// The create race of issue 17, through the real reconciler: between
// Tether's DescribeTable (no table) and its CreateTable, someone else
// creates the table (the fault proxy does it right before forwarding the
// CreateTable, which then answers ResourceInUse). The object says NotOwned,
// deleting it leaves the table, and nothing is deleted that Tether did not
// make; the adopt annotation is the way to manage it.
func TestDynamoDBTableCreateRaceLeavesTheTableNotOwned(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("raced")
	s.Proxy.BeforeForwarding("CreateTable", name, func() {
		_, err := s.Raw.CreateTable(context.Background(), &awsdynamodb.CreateTableInput{TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest})
		if err != nil {
			t.Errorf("the other party's CreateTable: %v", err)
		}
	})
	obj := ctrltest.NewTable("default", name)
	s.Create(t, obj)
	lost := s.eventuallySynced(t, obj, "False/NotOwned")
	g.Expect(conditionMessage(lost, "Synced")).To(ContainSubstring("created by someone else"))
	g.Expect(conditionMessage(lost, "Synced")).To(ContainSubstring(awsv1alpha1.AnnotationAdopt))
	g.Expect(lost.Status.TableID).To(BeEmpty())
	g.Expect(s.Proxy.CallsFor(name)["CreateTable"]).To(Equal(1))

	g.Expect(s.Client.Delete(context.Background(), obj)).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tableExists(t, name)).To(BeTrue(), "deleting the object deleted a table someone else created")
	g.Expect(s.Proxy.CallsFor(name)["DeleteTable"]).To(BeZero())
}

func TestDynamoDBTableConflictTouchesNothing(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	s.EnsureNamespace(t, "team-a")
	s.EnsureNamespace(t, "team-b")
	table := ctrltest.TableName("shared")
	first := ctrltest.NewTable("team-a", "shared", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = table })
	s.Create(t, first)
	s.EventuallyReady(t, first)

	second := ctrltest.NewTable("team-b", "shared", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = table
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	})
	s.Create(t, second)
	// The one outcome of a conflict, as for Hue: a wait, Ready=False
	// Conflict naming the holder, the pass itself fine.
	var loser *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		loser = s.Get(g, second)
		return ctrltest.Condition(loser, "Ready") + " " + ctrltest.Condition(loser, "Synced")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/Conflict True/Success"))
	g.Expect(conditionMessage(loser, "Ready")).To(ContainSubstring("team-a/shared"))
	// The loser's spec (a stream) was not applied, and deleting it leaves
	// the winner's table alone.
	g.Expect(s.describe(g, table).Table.StreamSpecification).To(BeNil())
	g.Expect(s.Client.Delete(context.Background(), second)).To(Succeed())
	s.eventuallyGone(t, second)
	g.Expect(s.tableExists(t, table)).To(BeTrue())
	s.EventuallyReady(t, first)
}

func TestDynamoDBTablePausedMakesNoCalls(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("paused")
	obj := ctrltest.NewTable("default", name, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
	})
	s.Create(t, obj)
	s.eventuallySynced(t, obj, "False/Paused")
	g.Expect(s.tableExists(t, name)).To(BeFalse())
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { delete(o.Annotations, commonv1alpha1.AnnotationReconcile) })
	s.EventuallyReady(t, obj)
}

// An index whose projection changed is not replaced until the annotation
// allows it; the annotation alone (no spec change) lets it go on.
func TestDynamoDBTableIndexReplacementNeedsTheAnnotation(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("replace")
	obj := ctrltest.NewTable("default", name, ddbGSI("byCustomer", "customer", nil))
	s.Create(t, obj)
	s.EventuallyReady(t, obj)

	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.GlobalSecondaryIndexes[0].Projection = awsv1alpha1.Projection{ProjectionType: "KEYS_ONLY"}
	})
	blocked := s.eventuallySynced(t, obj, "False/IndexReplacementNotAllowed")
	g.Expect(conditionMessage(blocked, "Synced")).To(ContainSubstring(awsv1alpha1.AnnotationAllowIndexReplacement))
	g.Expect(s.describe(g, name).Table.GlobalSecondaryIndexes[0].Projection.ProjectionType).To(Equal(types.ProjectionTypeAll))

	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{awsv1alpha1.AnnotationAllowIndexReplacement: "true"}
	})
	s.EventuallyReady(t, obj)
	g.Expect(s.describe(g, name).Table.GlobalSecondaryIndexes[0].Projection.ProjectionType).To(Equal(types.ProjectionTypeKeysOnly))
}

// A table that matches its spec costs one DescribeTable per poll interval
// and no status write.
func TestDynamoDBTableSteadyStateCost(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	name := ctrltest.TableName("steady")
	obj := ctrltest.NewTable("default", name, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "2s"}
	})
	s.Create(t, obj)
	ready := s.EventuallyReady(t, obj)
	before := s.Proxy.CallsFor(name)
	g.Consistently(func(g Gomega) string {
		return s.Get(g, obj).ResourceVersion
	}, "7s", "500ms").Should(Equal(ready.ResourceVersion), "the status was rewritten with nothing changed")
	after := s.Proxy.CallsFor(name)
	polls := after["DescribeTable"] - before["DescribeTable"]
	g.Expect(polls).To(BeNumerically(">=", 2), "no resync in 7s with a 2s poll interval")
	g.Expect(polls).To(BeNumerically("<=", 4), "more than one DescribeTable per poll interval")
	g.Expect(len(after)).To(Equal(len(before)), "calls other than DescribeTable: %v", after)
}

// 50 tables created while 30% of calls are throttled or fail with 5xx: all
// become Ready, with a bounded number of calls.
func TestDynamoDBTableFiftyTablesUnderThrottling(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	s.Proxy.SetRules(
		faultproxy.Rule{Share: 0.2, Fault: faultproxy.Throttling},
		faultproxy.Rule{Share: 0.1, Fault: faultproxy.InternalServerError},
	)
	defer s.Proxy.SetRules()
	s.Proxy.ResetCounts()
	throttledBefore := testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("dynamodb", "CreateTable", providers.ResultThrottled)) +
		testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("dynamodb", "DescribeTable", providers.ResultThrottled))
	var objs []*awsv1alpha1.DynamoDBTable
	for range 50 {
		obj := ctrltest.NewTable("default", ctrltest.TableName("fleet"))
		s.Create(t, obj)
		objs = append(objs, obj)
	}
	for _, obj := range objs {
		s.EventuallyReady(t, obj)
	}
	faults, total := s.Proxy.Faults(), s.Proxy.Total()
	t.Logf("calls %v, faults %v", s.Proxy.Calls(), faults)
	g.Expect(faults["CreateTable"]+faults["DescribeTable"]).To(BeNumerically(">", 0), "no faults injected")
	// Without faults: 3 calls per table (DescribeTable, CreateTable,
	// DescribeTable). 30% faults add retries; 8 per table is the ceiling.
	g.Expect(total).To(BeNumerically("<=", 50*8))
	g.Expect(s.Proxy.Calls()["CreateTable"]).To(BeNumerically("<=", 50*3))
	// The operator's own metric sees the same pushback the proxy injected.
	throttled := testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("dynamodb", "CreateTable", providers.ResultThrottled)) +
		testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("dynamodb", "DescribeTable", providers.ResultThrottled))
	g.Expect(throttled - throttledBefore).To(BeNumerically(">", 0))
	g.Expect(testutil.ToFloat64(providers.ExternalCallsTotal.WithLabelValues("dynamodb", "CreateTable", providers.ResultOK))).To(BeNumerically(">=", 50))
}

// conditionMessage returns a condition's message.
func conditionMessage(obj *awsv1alpha1.DynamoDBTable, conditionType string) string {
	for _, c := range obj.Status.Conditions {
		if c.Type == conditionType {
			return c.Message
		}
	}
	return ""
}

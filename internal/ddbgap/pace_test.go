package ddbgap_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// testPace is AWS's pace scaled down to seconds. Each check of a state
// right after a call has at least a second of margin on a loaded machine;
// each transition is waited for with Eventually.
var testPace = ddbgap.Pace{Create: 3 * time.Second, Unseen: 1500 * time.Millisecond, Update: 2 * time.Second,
	Backfill: 2 * time.Second, Delete: 2 * time.Second, Stale: 3 * time.Second, TTLCooldown: time.Minute}

const paceWait = 20 * time.Second

func (w *world) describe(name string) (*types.TableDescription, error) {
	out, err := w.ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

func (w *world) status(g Gomega, name string) types.TableStatus {
	d, err := w.describe(name)
	g.Expect(err).NotTo(HaveOccurred())
	return d.TableStatus
}

// AWS's documented pace, as the AWS SDK sees the model answer it: a new
// table is not found for a moment, then CREATING, then ACTIVE; nothing
// changes it while it is CREATING.
func TestModelPaceCreate(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Pace: testPace})
	g := NewWithT(t)
	ctx := context.Background()
	w.table("pace-slow", types.BillingModePayPerRequest, false)
	_, err := w.describe("pace-slow")
	w.expect(err, "ResourceNotFoundException")
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("pace-slow"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}})
	w.expect(err, "ResourceInUseException")
	_, err = w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("pace-slow")})
	w.expect(err, "ResourceInUseException")
	g.Eventually(func(g Gomega) types.TableStatus { return w.status(g, "pace-slow") }, paceWait, 50*time.Millisecond).Should(Equal(types.TableStatusCreating))
	g.Eventually(func(g Gomega) types.TableStatus { return w.status(g, "pace-slow") }, paceWait, 50*time.Millisecond).Should(Equal(types.TableStatusActive))
}

// After an accepted UpdateTable every read within the stale window still
// shows the table before it; the table is UPDATING meanwhile, so the same
// call again is refused; once ACTIVE, the change shows.
func TestModelPaceStaleUpdate(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Pace: ddbgap.Pace{Update: testPace.Update, Stale: testPace.Stale}})
	g := NewWithT(t)
	ctx := context.Background()
	w.table("pace-stale", types.BillingModePayPerRequest, false)
	switchBilling := &dynamodb.UpdateTableInput{TableName: aws.String("pace-stale"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}}
	if _, err := w.ddb.UpdateTable(ctx, switchBilling); err != nil {
		t.Fatal(err)
	}
	d, err := w.describe("pace-stale")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.TableStatus).To(Equal(types.TableStatusActive), "a stale read shows the table before the change")
	g.Expect(d.BillingModeSummary.BillingMode).To(Equal(types.BillingModePayPerRequest))
	_, err = w.ddb.UpdateTable(ctx, switchBilling)
	w.expect(err, "ResourceInUseException")
	g.Eventually(func(g Gomega) types.BillingMode {
		d, err := w.describe("pace-stale")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		return billingModeOf(d)
	}, paceWait, 50*time.Millisecond).Should(Equal(types.BillingModeProvisioned))
}

func billingModeOf(d *types.TableDescription) types.BillingMode {
	if d.BillingModeSummary == nil {
		return types.BillingModeProvisioned
	}
	return d.BillingModeSummary.BillingMode
}

// An index created by UpdateTable: the table UPDATING while its resources
// are allocated, then ACTIVE while the index backfills, when other changes
// go but another index create does not; then ACTIVE.
func TestModelPaceIndexBackfill(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Pace: ddbgap.Pace{Update: testPace.Update, Backfill: 4 * time.Second}})
	g := NewWithT(t)
	ctx := context.Background()
	w.table("pace-indexed", types.BillingModeProvisioned, false)
	addIndex := func(name string) *dynamodb.UpdateTableInput {
		return &dynamodb.UpdateTableInput{TableName: aws.String("pace-indexed"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(name), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(name), KeyType: types.KeyTypeHash}},
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}}}}
	}
	if _, err := w.ddb.UpdateTable(ctx, addIndex("first")); err != nil {
		t.Fatal(err)
	}
	d, err := w.describe("pace-indexed")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.TableStatus).To(Equal(types.TableStatusUpdating))
	g.Expect(d.GlobalSecondaryIndexes).To(ConsistOf(And(HaveField("IndexStatus", types.IndexStatusCreating), HaveField("Backfilling", HaveValue(BeFalse())))))
	g.Eventually(func(g Gomega) {
		d, err := w.describe("pace-indexed")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		g.Expect(d.GlobalSecondaryIndexes).To(ConsistOf(And(HaveField("IndexStatus", types.IndexStatusCreating), HaveField("Backfilling", HaveValue(BeTrue())))))
	}, paceWait, 50*time.Millisecond).Should(Succeed())
	_, err = w.ddb.UpdateTable(ctx, addIndex("second"))
	w.expect(err, "LimitExceededException")
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("pace-indexed"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(6), WriteCapacityUnits: aws.Int64(6)}})
	g.Expect(err).NotTo(HaveOccurred(), "once the index backfills, other changes go")
	g.Eventually(func(g Gomega) {
		d, err := w.describe("pace-indexed")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		g.Expect(d.GlobalSecondaryIndexes).To(ConsistOf(HaveField("IndexStatus", types.IndexStatusActive)))
	}, paceWait, 50*time.Millisecond).Should(Succeed())
	if _, err := w.ddb.UpdateTable(ctx, addIndex("second")); err != nil {
		t.Fatalf("once the first index is ACTIVE: %v", err)
	}
}

// A deleted table stays DELETING: a second DeleteTable is no error, a
// CreateTable of its name is refused, then it is gone.
func TestModelPaceDelete(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Pace: ddbgap.Pace{Delete: testPace.Delete}})
	g := NewWithT(t)
	ctx := context.Background()
	w.table("pace-going", types.BillingModePayPerRequest, false)
	if _, err := w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("pace-going")}); err != nil {
		t.Fatal(err)
	}
	g.Expect(w.describe("pace-going")).To(HaveField("TableStatus", types.TableStatusDeleting))
	_, err := w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("pace-going")})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = w.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("pace-going"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	w.expect(err, "ResourceInUseException")
	g.Eventually(func() string { _, err := w.describe("pace-going"); return code(err) }, paceWait, 50*time.Millisecond).Should(Equal("ResourceNotFoundException"))
}

// A second UpdateTimeToLive within the hour is refused, as AWS refuses it.
func TestModelPaceTimeToLive(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Pace: ddbgap.Pace{TTLCooldown: time.Minute}})
	ctx := context.Background()
	w.table("pace-ttl", types.BillingModePayPerRequest, false)
	ttl := func(on bool) error {
		_, err := w.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("pace-ttl"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(on)}})
		return err
	}
	if err := ttl(true); err != nil {
		t.Fatal(err)
	}
	w.expect(ttl(false), "ValidationException")
}

// Tags: within the stale window ListTagsOfResource answers the tags before.
func TestModelPaceStaleTags(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Tagging: true, Pace: ddbgap.Pace{Stale: testPace.Stale}})
	g := NewWithT(t)
	ctx := context.Background()
	w.table("stale-tags", types.BillingModePayPerRequest, false)
	d, err := w.describe("stale-tags")
	g.Expect(err).NotTo(HaveOccurred())
	if _, err := w.ddb.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: d.TableArn,
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}}); err != nil {
		t.Fatal(err)
	}
	tags := func() []types.Tag {
		out, err := w.ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.TableArn})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Tags
	}
	g.Expect(tags()).To(BeEmpty())
	g.Eventually(tags, paceWait, 50*time.Millisecond).Should(HaveLen(1))
}

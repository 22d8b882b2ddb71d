package dynamodb

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

func TestCreateWithIndexesStreamAndTTL(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("byCustomer", "customer", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AttributeDefinitions = append(o.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: "sk", AttributeType: "S"},
			awsv1alpha1.AttributeDefinition{AttributeName: "created", AttributeType: "N"})
		o.Spec.KeySchema = append(o.Spec.KeySchema, awsv1alpha1.KeySchemaElement{AttributeName: "sk", KeyType: "RANGE"})
		o.Spec.LocalSecondaryIndexes = []awsv1alpha1.LocalSecondaryIndex{{IndexName: "byCreated",
			KeySchema:  awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "created", KeyType: "RANGE"}},
			Projection: awsv1alpha1.Projection{ProjectionType: "KEYS_ONLY"}}}
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_IMAGE"}
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
	})
	f.converge(obj)

	d := f.describe(obj.Name)
	if got := indexNames(d); !slices.Equal(got, []string{"byCustomer"}) {
		t.Errorf("GSIs = %v", got)
	}
	if len(d.LocalSecondaryIndexes) != 1 || aws.ToString(d.LocalSecondaryIndexes[0].IndexName) != "byCreated" {
		t.Errorf("LSIs = %+v", d.LocalSecondaryIndexes)
	}
	if d.StreamSpecification == nil || d.StreamSpecification.StreamViewType != types.StreamViewTypeNewImage {
		t.Errorf("stream = %+v", d.StreamSpecification)
	}
	ttl, err := f.raw.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(obj.Name)})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expires" {
		t.Errorf("TTL = %+v, %v", ttl, err)
	}
	if obj.Status.TableArn == "" || obj.Status.LatestStreamArn == "" || obj.Status.TableStatus != "ACTIVE" || obj.Status.LastSyncTime == nil {
		t.Errorf("status not recorded: %+v", obj.Status)
	}
	if len(obj.Status.PendingPlan) != 0 {
		t.Errorf("pending plan left: %v", obj.Status.PendingPlan)
	}
	// Converged means converged: another pass sends nothing.
	f.proxy.ResetCounts()
	if obs, err := f.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpToDate {
		t.Fatalf("second pass: %+v %v", obs, err)
	}
	if calls := f.proxy.Calls(); calls["UpdateTable"]+calls["UpdateTimeToLive"]+calls["CreateTable"] != 0 {
		t.Errorf("steady state made writes: %v", calls)
	}
}

// Every change below goes through the legal sequence on AWS's own
// implementation; converge fails on any error AWS returns.
func TestUpdatesThroughputBillingAndIndexes(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("g1x", "a", capacity(2, 2)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
	})
	f.converge(obj)

	step := func(name string, change func(*awsv1alpha1.DynamoDBTable), check func(*types.TableDescription)) {
		t.Helper()
		change(obj)
		obj.Generation++
		f.converge(obj)
		check(f.describe(obj.Name))
		if t.Failed() {
			t.FailNow()
		}
		t.Logf("%s: ok", name)
	}
	step("throughput", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ProvisionedThroughput = capacity(7, 6)
		o.Spec.GlobalSecondaryIndexes[0].ProvisionedThroughput = capacity(3, 4)
	}, func(d *types.TableDescription) {
		if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 7 || aws.ToInt64(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 4 {
			t.Errorf("throughput not applied: %+v", d.ProvisionedThroughput)
		}
	})
	step("to PAY_PER_REQUEST with a GSI", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModePayPerRequest
		o.Spec.ProvisionedThroughput = nil
		o.Spec.GlobalSecondaryIndexes[0].ProvisionedThroughput = nil
	}, func(d *types.TableDescription) {
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("billing = %+v", d.BillingModeSummary)
		}
	})
	step("two GSI adds in one apply", func(o *awsv1alpha1.DynamoDBTable) {
		withGSI("g2x", "b", nil)(o)
		withGSI("g3x", "c", nil)(o)
	}, func(d *types.TableDescription) {
		if got := indexNames(d); len(got) != 3 {
			t.Errorf("GSIs = %v, want 3", got)
		}
	})
	step("back to PROVISIONED with GSIs", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(4, 4)
		for i := range o.Spec.GlobalSecondaryIndexes {
			o.Spec.GlobalSecondaryIndexes[i].ProvisionedThroughput = capacity(1, 1)
		}
	}, func(d *types.TableDescription) {
		if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("billing = %+v", d.BillingModeSummary)
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits) != 1 {
				t.Errorf("index %s throughput %+v", aws.ToString(g.IndexName), g.ProvisionedThroughput)
			}
		}
	})
	step("remove a GSI and add another", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.GlobalSecondaryIndexes = o.Spec.GlobalSecondaryIndexes[1:]
		withGSI("g4x", "d", capacity(1, 1))(o)
		o.Spec.AttributeDefinitions = slices.DeleteFunc(o.Spec.AttributeDefinitions, func(a awsv1alpha1.AttributeDefinition) bool { return a.AttributeName == "a" })
	}, func(d *types.TableDescription) {
		got := indexNames(d)
		slices.Sort(got)
		if !slices.Equal(got, []string{"g2x", "g3x", "g4x"}) {
			t.Errorf("GSIs = %v", got)
		}
	})
	step("stream on", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	}, func(d *types.TableDescription) {
		if d.StreamSpecification == nil || !aws.ToBool(d.StreamSpecification.StreamEnabled) {
			t.Errorf("stream = %+v", d.StreamSpecification)
		}
	})
	step("stream off", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.StreamSpecification = nil }, func(d *types.TableDescription) {
		if d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
			t.Errorf("stream = %+v", d.StreamSpecification)
		}
		if obj.Status.LatestStreamArn != "" {
			t.Errorf("status still shows stream %s", obj.Status.LatestStreamArn)
		}
	})
	// DynamoDB Local enforces one index create per call: a batched create
	// would have failed converge with LimitExceededException.
	if f.proxy.Faults()["UpdateTable"] != 0 {
		t.Errorf("faults: %v", f.proxy.Faults())
	}
}

func TestIndexReplacementNeedsTheAnnotation(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("g1x", "a", nil))
	f.converge(obj)
	obj.Spec.GlobalSecondaryIndexes[0].Projection = awsv1alpha1.Projection{ProjectionType: "KEYS_ONLY"}
	obj.Generation++

	_, err := f.pass(obj)
	if te, ok := providers.AsTerminal(err); !ok || te.Reason != ReasonIndexReplacement {
		t.Fatalf("err = %v, want terminal %s", err, ReasonIndexReplacement)
	}
	if !slices.ContainsFunc(obj.Status.PendingPlan, func(s string) bool { return len(s) > 8 && s[:8] == "blocked:" }) {
		t.Errorf("pending plan does not show the block: %v", obj.Status.PendingPlan)
	}
	obj.Annotations = map[string]string{awsv1alpha1.AnnotationAllowIndexReplacement: "true"}
	f.converge(obj)
	if p := f.describe(obj.Name).GlobalSecondaryIndexes[0].Projection.ProjectionType; p != types.ProjectionTypeKeysOnly {
		t.Errorf("projection = %s", p)
	}
}

// Changes behind Tether's back are put back within one poll.
func TestDriftIsCorrected(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("g1x", "a", capacity(1, 1)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "exp", Enabled: true}
	})
	f.converge(obj)
	ctx := context.Background()
	name := aws.String(obj.Name)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(9)}}))
	must(f.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("g1x")}}}}))
	must(f.raw.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: name,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(false)}}))

	f.converge(obj)
	d := f.describe(obj.Name)
	if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 5 || len(d.GlobalSecondaryIndexes) != 1 {
		t.Errorf("drift not corrected: %+v, GSIs %v", d.ProvisionedThroughput, indexNames(d))
	}
	ttl, _ := f.raw.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: name})
	if ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("TTL = %s", ttl.TimeToLiveDescription.TimeToLiveStatus)
	}
}

func TestOutOfBandDeleteIsRecreated(t *testing.T) {
	f := localFixture(t)
	obj := newTable()
	f.converge(obj)
	if _, err := f.raw.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(obj.Name)}); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	if !f.exists(obj.Name) {
		t.Fatal("table not re-created")
	}
	if f.events.count("TableDeleted") != 1 {
		t.Errorf("TableDeleted events = %d, want 1", f.events.count("TableDeleted"))
	}
}

func TestForeignTableIsAdoptedOnlyWhenAsked(t *testing.T) {
	f := localFixture(t)
	obj := newTable()
	_, err := f.raw.CreateTable(context.Background(), plan.CreateTableInput(obj.Name, &obj.Spec, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.pass(obj)
	if te, ok := providers.AsTerminal(err); !ok || te.Reason != ReasonNotOwned {
		t.Fatalf("err = %v, want terminal %s", err, ReasonNotOwned)
	}
	// Deleting the object must not delete a table it does not own.
	f.deleteFully(obj)
	if !f.exists(obj.Name) {
		t.Fatal("a table Tether did not create was deleted")
	}

	obj.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true"}
	obj.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	f.converge(obj)
	if f.describe(obj.Name).StreamSpecification == nil {
		t.Error("adopted table not changed to match the spec")
	}
	if f.events.count("Adopted") != 1 || !obj.Status.Adopted {
		t.Errorf("Adopted events = %d, status.adopted %v", f.events.count("Adopted"), obj.Status.Adopted)
	}
	// Adoption alone does not let Tether delete the table (issue 23 item 8).
	f.deleteFully(obj)
	if !f.exists(obj.Name) || f.events.count("LeftInPlace") != 1 {
		t.Fatalf("an adopted table was deleted without %s (LeftInPlace events %d)", awsv1alpha1.AnnotationDeleteAdopted, f.events.count("LeftInPlace"))
	}
	obj.Annotations[awsv1alpha1.AnnotationDeleteAdopted] = "true"
	f.deleteFully(obj)
	if f.exists(obj.Name) {
		t.Error("adopted table not deleted with the object and its opt-in")
	}
}

func TestDeletionProtectionBlocksDelete(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DeletionProtectionEnabled = aws.Bool(true) })
	f.converge(obj)
	err := f.delete(obj)
	if ra, ok := providers.AsRetryAfter(err); !ok || ra.Reason != reasonDeletionProtected {
		t.Fatalf("err = %v, want retry-after %s", err, reasonDeletionProtected)
	}
	if !f.exists(obj.Name) {
		t.Fatal("protected table deleted")
	}
	obj.Spec.DeletionProtectionEnabled = aws.Bool(false)
	f.deleteFully(obj)
	if f.exists(obj.Name) {
		t.Fatal("table not deleted once protection is off in the spec")
	}
}

func TestRetainLeavesTheTable(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyRetain })
	f.converge(obj)
	f.proxy.ResetCounts()
	f.deleteFully(obj)
	if !f.exists(obj.Name) {
		t.Fatal("retained table deleted")
	}
	if f.proxy.Total() != 0 {
		t.Errorf("Retain made calls: %v", f.proxy.Calls())
	}
}

// DynamoDB Local lacks tagging and continuous backups: the rest is managed,
// the status says what is left out, and the missing APIs are not called
// again on later passes.
func TestUnsupportedFeaturesAreReportedNotRetried(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Tags = map[string]string{"team": "orders"}
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
		o.Spec.TableClass = "STANDARD_INFREQUENT_ACCESS"
	})
	f.converge(obj)
	want := []string{plan.FeaturePITR, plan.FeatureTableClass, plan.FeatureTags}
	if !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	f.proxy.ResetCounts()
	for range 3 {
		if obs, err := f.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpToDate {
			t.Fatalf("pass: %+v %v", obs, err)
		}
	}
	calls := f.proxy.Calls()
	if calls["ListTagsOfResource"]+calls["DescribeContinuousBackups"]+calls["UpdateTable"] != 0 || calls["DescribeTable"] != 3 {
		t.Errorf("calls on later passes = %v, want only 3 DescribeTable", calls)
	}
	if f.events.count("FeatureUnsupported") != 3 {
		t.Errorf("FeatureUnsupported events = %d, want one per feature", f.events.count("FeatureUnsupported"))
	}
	// The Guarantees: no AWS request id in an event (DynamoDB Local's
	// answers carry one, as AWS's do).
	for _, note := range f.events.notesOf("FeatureUnsupported") {
		if strings.Contains(note, "RequestID") || !strings.Contains(note, "(DynamoDB ") {
			t.Errorf("event note %q: want the error code without the request id", note)
		}
	}
}

func TestValidationExceptionIsTerminal(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		// The API server would refuse this; AWS does too.
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(0, 0)
	})
	_, err := f.pass(obj)
	te, ok := providers.AsTerminal(err)
	if !ok || te.Reason != access.ReasonInvalidSpec {
		t.Fatalf("err = %v, want terminal %s", err, access.ReasonInvalidSpec)
	}
	t.Logf("AWS says: %v", err)
}

// Throttling and 5xx on 30% of calls: the SDK retryer and the reconciler's
// retries get every table created, with a bounded number of calls.
func TestThrottlingIsAbsorbed(t *testing.T) {
	f := localFixture(t)
	f.proxy.SetRules(
		faultproxy.Rule{Share: 0.2, Fault: faultproxy.Throttling},
		faultproxy.Rule{Share: 0.1, Fault: faultproxy.InternalServerError},
	)
	objs := make([]*awsv1alpha1.DynamoDBTable, 10)
	for i := range objs {
		objs[i] = newTable(withGSI("g1x", "a", nil))
	}
	for _, obj := range objs {
		for n := 0; ; n++ {
			obs, err := f.pass(obj)
			if err == nil && obs.Outcome == providers.OutcomeUpToDate && obs.Available {
				break
			}
			if err != nil {
				if _, ok := providers.AsTerminal(err); ok {
					t.Fatalf("throttling became terminal: %v", err)
				}
			}
			if n > 20 {
				t.Fatalf("table %s not ready: %v", obj.Name, err)
			}
		}
	}
	if f.proxy.Faults()["CreateTable"]+f.proxy.Faults()["DescribeTable"] == 0 {
		t.Fatal("no faults injected: the test proves nothing")
	}
	// Per table: a DescribeTable, CreateTable, DescribeTable when ready,
	// plus retries of ~30% of those.
	if total := f.proxy.Total(); total > 10*8 {
		t.Errorf("%d calls for 10 tables: %v", total, f.proxy.Calls())
	}
}

// dynalite answers 200 to an index create and then does nothing: the same
// step would be sent forever. The adapter has no breaker of its own (the
// generic reconciler's stops it: controllers'
// TestDynamoDBStallIsTheGenericBreakers); what it owes that breaker is the
// same stall key at every pass that plans the step again.
func TestARepeatedStepKeepsItsStallKey(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	// No settle window: each pass's read decides, as it does once the
	// window is over (TestAStepInFlightIsNotSentAgain has the window).
	f := newFixture(t, server.URL, Options{SettleWindow: -1})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		// dynalite wants index throughput even on demand; PROVISIONED has it.
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(1, 1)
	})
	f.converge(obj)
	withGSI("g1x", "a", capacity(1, 1))(obj)
	obj.Generation++

	f.proxy.ResetCounts()
	var keys []string
	for range 4 {
		obs, err := f.pass(obj)
		if err != nil || obs.Outcome != providers.OutcomeUpdate {
			t.Fatalf("pass: %+v, %v; want the index create sent", obs, err)
		}
		keys = append(keys, obs.Diff.(providers.StallKeyer).StallKey())
	}
	if got := f.proxy.Calls()["UpdateTable"]; got != 4 {
		t.Errorf("UpdateTable calls = %d, want one per pass (the generic breaker decides when to stop)", got)
	}
	for _, k := range keys[1:] {
		if k != keys[0] || !strings.Contains(k, "g1x") {
			t.Fatalf("stall keys %q: want the same key, naming the index, at every pass", keys)
		}
	}
}

// With real transition delays, updates wait while the table is UPDATING
// (a Wait, no call) and Delete returns nil only once the table is gone.
func TestWaitsWhileTheTableIsBusy(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{CreateTableMs: 300, UpdateTableMs: 300, DeleteTableMs: 300})
	f := newFixture(t, server.URL, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(1, 1)
	})
	obs, err := f.pass(obj) // creates
	if err != nil || obs.Outcome != providers.OutcomeCreate {
		t.Fatalf("first pass: %+v %v", obs, err)
	}
	obs, err = f.pass(obj)
	if err != nil || obs.Outcome != providers.OutcomeWait || obs.Wait.Reason != providers.ReasonCreating || obs.Wait.For == 0 {
		t.Fatalf("while CREATING: %+v %v", obs, err)
	}
	f.converge(obj)

	obj.Spec.ProvisionedThroughput = capacity(2, 2)
	obj.Generation++
	if _, err := f.pass(obj); err != nil {
		t.Fatalf("update: %v", err)
	}
	obj.Spec.ProvisionedThroughput = capacity(3, 3)
	obj.Generation++
	f.proxy.ResetCounts()
	_, err = f.pass(obj)
	if pe, ok := providers.AsPending(err); !ok || pe.Reason != access.ReasonTableBusy {
		t.Fatalf("while UPDATING: err = %v, want pending %s", err, access.ReasonTableBusy)
	}
	if f.proxy.Calls()["UpdateTable"] != 0 {
		t.Error("sent an update while the table was UPDATING")
	}
	f.converge(obj)
	if got := aws.ToInt64(f.describe(obj.Name).ProvisionedThroughput.ReadCapacityUnits); got != 3 {
		t.Errorf("read capacity = %d, want 3", got)
	}

	err = f.delete(obj)
	if _, ok := providers.AsPending(err); !ok {
		t.Fatalf("first delete: %v, want pending", err)
	}
	err = f.delete(obj)
	if pe, ok := providers.AsPending(err); !ok || pe.Reason != reasonDeleting {
		t.Fatalf("while DELETING: %v, want pending %s", err, reasonDeleting)
	}
	f.deleteFully(obj)
	if f.exists(obj.Name) {
		t.Error("Delete returned nil while the table still exists")
	}
}

// Secondary reads are not made on every poll: once per interval, and again
// right after Tether changed the feature.
func TestSecondaryReadsAreNotEveryPoll(t *testing.T) {
	f := newFixture(t, dynamoDBLocal(t).URL, Options{SecondaryReadInterval: time.Hour})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "exp", Enabled: true}
	})
	f.converge(obj)
	f.proxy.ResetCounts()
	for range 5 {
		if _, err := f.pass(obj); err != nil {
			t.Fatal(err)
		}
	}
	if calls := f.proxy.Calls(); calls["DescribeTimeToLive"] != 0 || calls["DescribeTable"] != 5 {
		t.Errorf("calls in 5 polls = %v, want 5 DescribeTable and no DescribeTimeToLive", calls)
	}
	// A spec without TTL never reads it.
	plain := newTable()
	f.converge(plain)
	if f.proxy.Calls()["DescribeTimeToLive"] != 0 {
		t.Error("read TTL for a spec that does not use it")
	}
}

// Where the endpoint has tagging (dynalite), Tether marks the tables it
// creates, recognises them after a restart by that mark, and puts back a
// spec tag removed behind its back.
func TestOwnerTagsAndTagDrift(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	f := newFixture(t, server.URL, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "orders"} })
	f.converge(obj)
	ctx := context.Background()
	arn := aws.String(obj.Status.TableArn)
	tags, err := listTags(ctx, f.raw, *arn)
	if err != nil {
		t.Fatal(err)
	}
	if tags[TagOwnerUID] != string(obj.UID) || tags[tagOwner] != "default/"+obj.Name || tags["team"] != "orders" {
		t.Fatalf("tags = %v", tags)
	}

	// A restarted operator (no memory) with a lost status still owns it.
	restarted := newFixture(t, server.URL, Options{})
	obj.Status.TableID = ""
	restarted.converge(obj)

	// Another object naming the same table does not.
	other := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = obj.Name })
	if _, err := restarted.pass(other); !isTerminalReason(err, ReasonNotOwned) {
		t.Fatalf("other object: %v, want %s", err, ReasonNotOwned)
	}

	if _, err := f.raw.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team"}}); err != nil {
		t.Fatal(err)
	}
	restarted.converge(obj)
	if tags, _ := listTags(ctx, f.raw, *arn); tags["team"] != "orders" {
		t.Errorf("tag drift not corrected: %v", tags)
	}

	// A tag removed from the spec goes; a tag someone else set stays.
	if _, err := f.raw.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn,
		Tags: []types.Tag{{Key: aws.String("cost-center"), Value: aws.String("42")}}}); err != nil {
		t.Fatal(err)
	}
	obj.Spec.Tags = map[string]string{"env": "prod"}
	obj.Generation++
	restarted.converge(obj)
	tags, _ = listTags(ctx, f.raw, *arn)
	if _, ok := tags["team"]; ok || tags["env"] != "prod" || tags["cost-center"] != "42" || tags[TagOwnerUID] == "" {
		t.Errorf("tags after removing one from the spec = %v", tags)
	}
	if !slices.Equal(obj.Status.ManagedTagKeys, []string{"env"}) {
		t.Errorf("managed tag keys = %v", obj.Status.ManagedTagKeys)
	}
}

func isTerminalReason(err error, reason string) bool {
	te, ok := providers.AsTerminal(err)
	return ok && te.Reason == reason
}

// Billing switched behind Tether's back: one call puts it back, carrying
// the table's and the index's throughput (no second, illegal update).
func TestBillingDriftIsPutBackInOneCall(t *testing.T) {
	f := localFixture(t)
	obj := newTable(withGSI("g1x", "a", capacity(2, 2)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
	})
	f.converge(obj)
	if _, err := f.raw.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(obj.Name),
		BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateTable"]; got != 1 {
		t.Errorf("UpdateTable calls = %d, want 1", got)
	}
	d := f.describe(obj.Name)
	if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits) != 2 {
		t.Errorf("throughput after the switch back: table %+v, index %+v", d.ProvisionedThroughput, d.GlobalSecondaryIndexes[0].ProvisionedThroughput)
	}
}

// While an index is CREATING, Update sends nothing and asks to look again.
func TestNoUpdateWhileAnIndexIsCreating(t *testing.T) {
	gsi := func(name, hash string) plan.Index {
		return plan.Index{Name: name, Keys: []plan.Key{{Name: hash, Type: "HASH"}}, Projection: plan.Projection{Type: "ALL"}}
	}
	have := &plan.Table{Status: "ACTIVE", BillingMode: awsv1alpha1.BillingModePayPerRequest, GSIs: []plan.Index{gsi("a1x", "a")}}
	have.GSIs[0].Status = "CREATING"
	want := &plan.Table{BillingMode: awsv1alpha1.BillingModePayPerRequest, GSIs: []plan.Index{gsi("a1x", "a"), gsi("b1x", "b")},
		AttributeTypes: map[string]string{"a": "S", "b": "S"}}
	pl := plan.Compute("t", want, have, plan.Options{})
	p := New(Options{Clients: access.ClientOptions{DefaultRegion: "us-east-1"}})
	ep := &access.Endpoint{API: noCalls{t}, Region: "us-east-1", Account: "operator", Key: "fake"}
	err := (&tableConn{p: p, ep: ep}).Update(context.Background(), newTable(), pl)
	if pe, ok := providers.AsPending(err); !ok || pe.Reason != access.ReasonTableBusy || pe.For != access.BusyDelay {
		t.Fatalf("err = %v, want pending %s after %s", err, access.ReasonTableBusy, access.BusyDelay)
	}
	if want := "index a1x is CREATING"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "create index b1x") {
		t.Errorf("message %q should say what it waits for and what is pending", err)
	}
}

// noCalls is an API that fails the test on any call.
type noCalls struct{ t *testing.T }

func (n noCalls) fail() { n.t.Helper(); n.t.Fatal("unexpected DynamoDB call") }
func (n noCalls) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) ListTagsOfResource(context.Context, *dynamodb.ListTagsOfResourceInput, ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) TagResource(context.Context, *dynamodb.TagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error) {
	n.fail()
	return nil, nil
}
func (n noCalls) UntagResource(context.Context, *dynamodb.UntagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error) {
	n.fail()
	return nil, nil
}

// After a restart (no memory) the status alone proves ownership on an
// endpoint without tags: the identity Tether recorded at creation matches
// what DescribeTable reports.
func TestOwnershipSurvivesARestartWithoutTags(t *testing.T) {
	f := localFixture(t)
	obj := newTable()
	f.converge(obj)
	restarted := newFixture(t, dynamoDBLocal(t).URL, Options{})
	if obs, err := restarted.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpToDate {
		t.Fatalf("after restart: %+v %v", obs, err)
	}
	restarted.deleteFully(obj)
	if restarted.exists(obj.Name) {
		t.Error("a restarted operator did not delete its own table")
	}
}

// Tags are eventually consistent on AWS: after TagResource the adapter does
// not re-read them at once (which could resend them and trip the stall
// breaker); it counts them as applied until the next scheduled read.
func TestTagChangeIsSentOnceWithoutReread(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	f := newFixture(t, server.URL, Options{SecondaryReadInterval: time.Hour})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "a"} })
	f.converge(obj)
	f.proxy.ResetCounts()
	obj.Spec.Tags = map[string]string{"team": "b"}
	obj.Generation++
	f.converge(obj)
	for range 3 {
		if _, err := f.pass(obj); err != nil {
			t.Fatal(err)
		}
	}
	if calls := f.proxy.Calls(); calls["TagResource"] != 1 || calls["ListTagsOfResource"] != 0 {
		t.Errorf("calls = %v, want one TagResource and no re-read", calls)
	}
	if tags, _ := listTags(context.Background(), f.raw, obj.Status.TableArn); tags["team"] != "b" {
		t.Errorf("tags = %v", tags)
	}
}

// Tags are read only for tables whose spec uses them (issue 17 item 7), on
// an endpoint that has tagging: Tether's owner tags, which CreateTable
// applies, are no reason to read a table's tags on every secondary read. A
// spec that drops its tags gets the tags Tether applied removed, and then
// its tags are not read any more.
func TestTagsAreReadOnlyForSpecsThatUseThem(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	f := newFixture(t, server.URL, Options{SecondaryReadInterval: -1}) // every poll is due
	plain := newTable()
	tagged := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "orders"} })
	f.converge(plain)
	f.converge(tagged)
	f.proxy.ResetCounts()
	for range 5 {
		for _, obj := range []*awsv1alpha1.DynamoDBTable{plain, tagged} {
			if _, err := f.pass(obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := f.proxy.CallsFor(plain.Name)["ListTagsOfResource"]; n != 0 {
		t.Errorf("ListTagsOfResource for a spec without tags: %d in 5 polls, want 0", n)
	}
	if n := f.proxy.CallsFor(tagged.Name)["ListTagsOfResource"]; n != 5 {
		t.Errorf("ListTagsOfResource for a spec with tags: %d in 5 polls, want 5 (one per due read)", n)
	}

	tagged.Spec.Tags = nil
	tagged.Generation++
	f.converge(tagged)
	if tags, _ := listTags(context.Background(), f.raw, tagged.Status.TableArn); tags["team"] != "" {
		t.Errorf("the tag the spec dropped is still on the table: %v", tags)
	}
	f.proxy.ResetCounts()
	for range 3 {
		if _, err := f.pass(tagged); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.proxy.CallsFor(tagged.Name)["ListTagsOfResource"]; n != 0 {
		t.Errorf("ListTagsOfResource after the spec dropped its tags: %d, want 0", n)
	}
}

// Operator-level default tags are rendered per table (namespace, name,
// account) and merged under the spec's tags (the spec wins); they are
// managed like spec tags, so they are read back and put back.
func TestDefaultTagsAreRenderedUnderTheSpecsTags(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	f := newFixture(t, server.URL, Options{Clients: access.ClientOptions{AccountID: "123456789012"},
		DefaultTags: map[string]string{"owner": "{{.Namespace}}/{{.Name}}", "team": "platform", "account": "{{.AccountID}}-{{.Region}}"}})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "orders"} })
	f.converge(obj)
	ctx := context.Background()
	tags, err := listTags(ctx, f.raw, obj.Status.TableArn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"owner": "default/" + obj.Name, "team": "orders", "account": "123456789012-us-east-1"}
	for k, v := range want {
		if tags[k] != v {
			t.Errorf("tag %s = %q, want %q (all: %v)", k, tags[k], v, tags)
		}
	}
	if !slices.Equal(obj.Status.ManagedTagKeys, []string{"account", "owner", "team"}) {
		t.Errorf("managed tag keys = %v", obj.Status.ManagedTagKeys)
	}
	if _, err := f.raw.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(obj.Status.TableArn), TagKeys: []string{"owner"}}); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	if tags, _ := listTags(ctx, f.raw, obj.Status.TableArn); tags["owner"] != "default/"+obj.Name {
		t.Errorf("a default tag removed behind Tether's back was not put back: %v", tags)
	}
}

func TestParseDefaultTagsRefusesWhatCannotWork(t *testing.T) {
	for name, tags := range map[string]map[string]string{
		"unknown field":   {"owner": "{{.Owner}}"},
		"unclosed":        {"owner": "{{.Namespace"},
		"no dot":          {"owner": "{{Namespace}}"},
		"a function":      {"owner": `{{printf "%s" .Name}}`},
		"a pipeline":      {"owner": "{{.Name | lower}}"},
		"empty":           {"owner": "team-{{}}"},
		"AWS's prefix":    {"aws:owner": "x"},
		"Tether's prefix": {"tether.dev/owner": "x"},
	} {
		if _, err := ParseDefaultTags(tags); err == nil {
			t.Errorf("%s: accepted %v", name, tags)
		}
	}
}

func TestDefaultTagValues(t *testing.T) {
	data := tagData{Namespace: "shop", Name: "orders", Account: "team-a", AccountID: "111122223333", Region: "eu-west-1"}
	for value, want := range map[string]string{
		"{{.Namespace}}/{{.Name}} in {{.Account}}": "shop/orders in team-a",
		"{{ .AccountID }}:{{.Region}}":             "111122223333:eu-west-1",
		"cost-centre-42":                           "cost-centre-42",
		"{{.Name}}{{.Name}}":                       "ordersorders",
		"a } and a { stay":                         "a } and a { stay",
		"":                                         "",
	} {
		tags, err := ParseDefaultTags(map[string]string{"k": value})
		if err != nil {
			t.Errorf("%q refused: %v", value, err)
			continue
		}
		if got := tags["k"].render(data); got != want {
			t.Errorf("%q rendered %q, want %q", value, got, want)
		}
	}
}

// TestATableAnotherPartyDeletesIsAWait: while someone else deletes the
// table, Observe reports a wait (Deleting), never a match, and nothing is
// sent until the table is gone.
func TestATableAnotherPartyDeletesIsAWait(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{DeleteTableMs: 2000})
	f := newFixture(t, server.URL, Options{})
	obj := newTable()
	f.converge(obj)
	if _, err := f.raw.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(obj.Name)}); err != nil {
		t.Fatal(err)
	}
	f.proxy.ResetCounts()
	obs, err := f.pass(obj)
	if err != nil || obs.Outcome != providers.OutcomeWait || obs.Wait.Reason != reasonDeleting || obs.Wait.For <= 0 {
		t.Fatalf("while another party deletes the table: %+v, %v; want a wait (%s)", obs, err, reasonDeleting)
	}
	if calls := f.proxy.Calls(); calls["CreateTable"]+calls["UpdateTable"] != 0 {
		t.Errorf("sent %v while the table was DELETING", calls)
	}
}

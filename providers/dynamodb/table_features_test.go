package dynamodb

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

func recovery(on bool, days *int32) *awsv1alpha1.PointInTimeRecoverySpecification {
	return &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: on, RecoveryPeriodInDays: days}
}

// MODEL (DynamoDB Local has no continuous backups): turning recovery on
// carries the period in the same call; a new period is one call; a console
// change of the period is put back; no period in the spec leaves AWS's.
func TestRecoveryPeriodOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.PointInTimeRecoverySpecification = recovery(true, aws.Int32(7))
	})
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateContinuousBackups"]; got != 1 {
		t.Errorf("UpdateContinuousBackups calls = %d, want 1 (on, with the period)", got)
	}
	f.expectDays(obj.Name, 7)
	f.steady(obj, 2)

	obj.Spec.PointInTimeRecoverySpecification = recovery(true, aws.Int32(30))
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateContinuousBackups"]; got != 1 {
		t.Errorf("UpdateContinuousBackups calls = %d, want 1", got)
	}
	f.expectDays(obj.Name, 30)

	// Changed behind Tether's back.
	if _, err := f.raw.UpdateContinuousBackups(context.Background(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(obj.Name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(3)}}); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	f.expectDays(obj.Name, 30)

	// Without a period, whatever AWS has is left.
	obj.Spec.PointInTimeRecoverySpecification = recovery(true, nil)
	obj.Generation++
	f.steady(obj, 2)
	f.expectDays(obj.Name, 30)
}

func (f *modelFixture) expectDays(table string, days int32) {
	f.t.Helper()
	out, err := f.raw.DescribeContinuousBackups(context.Background(), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
	if err != nil {
		f.t.Fatal(err)
	}
	d := out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if d.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(d.RecoveryPeriodInDays) != days {
		f.t.Fatalf("point-in-time recovery = %s, %d days; want ENABLED, %d days", d.PointInTimeRecoveryStatus, aws.ToInt32(d.RecoveryPeriodInDays), days)
	}
}

func insightsOn(mode string) *awsv1alpha1.ContributorInsightsSpecification {
	return &awsv1alpha1.ContributorInsightsSpecification{Enabled: true, Mode: mode}
}

// MODEL (DynamoDB Local has no contributor insights): one call per table or
// index, ENABLING counts as on (no second call while it settles), one
// ListContributorInsights reads the table and every index, a mode change is
// one call, and turning off is one call per table or index.
func TestContributorInsightsOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Transition: 2 * time.Second}, Options{})
	obj := newTable(withGSI("byCustomer", "customer", nil), withGSI("byStatus", "status", nil), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ContributorInsightsSpecification = insightsOn("")
		o.Spec.GlobalSecondaryIndexes[1].ContributorInsightsSpecification = insightsOn(awsv1alpha1.ContributorInsightsThrottled)
	})
	f.converge(obj)
	calls := f.proxy.Calls()
	if calls["UpdateContributorInsights"] != 2 {
		t.Errorf("UpdateContributorInsights calls = %d, want 2 (table, byStatus)", calls["UpdateContributorInsights"])
	}
	// While ENABLING (2 s in the model), nothing is sent again.
	f.steady(obj, 3)
	if got := f.proxy.Calls()["ListContributorInsights"]; got != 3 {
		t.Errorf("ListContributorInsights calls = %d, want one per pass", got)
	}
	status := func(index string) (string, string) {
		in := &dynamodb.DescribeContributorInsightsInput{TableName: aws.String(obj.Name)}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		out, err := f.raw.DescribeContributorInsights(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return string(out.ContributorInsightsStatus), string(out.ContributorInsightsMode)
	}
	if s, _ := status("byCustomer"); s != "DISABLED" {
		t.Errorf("byCustomer = %s: an index the spec says nothing about is left alone", s)
	}
	if s, m := status("byStatus"); s != "ENABLING" && s != "ENABLED" || m != awsv1alpha1.ContributorInsightsThrottled {
		t.Errorf("byStatus = %s %s", s, m)
	}

	obj.Spec.ContributorInsightsSpecification = &awsv1alpha1.ContributorInsightsSpecification{Enabled: false}
	obj.Spec.GlobalSecondaryIndexes[1].ContributorInsightsSpecification = insightsOn(awsv1alpha1.ContributorInsightsAccessedAndThrottled)
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["UpdateContributorInsights"]; got != 2 {
		t.Errorf("UpdateContributorInsights calls = %d, want 2 (table off, index mode)", got)
	}
	if s, _ := status(""); s != "DISABLING" && s != "DISABLED" {
		t.Errorf("table = %s", s)
	}
	if _, m := status("byStatus"); m != awsv1alpha1.ContributorInsightsAccessedAndThrottled {
		t.Errorf("byStatus mode = %s", m)
	}
	f.steady(obj, 2)
}

func policyDoc(t *testing.T, doc string) *runtime.RawExtension {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return &runtime.RawExtension{Raw: []byte(doc)}
}

const (
	readerPolicy = `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/reader"},
		"Action": ["dynamodb:GetItem", "dynamodb:Query"], "Resource": "*"}]}`
	// The same document, keys in another order and no whitespace.
	readerPolicyReordered = `{"Statement":[{"Resource":"*","Action":["dynamodb:GetItem","dynamodb:Query"],"Principal":{"AWS":"arn:aws:iam::111122223333:role/reader"},"Effect":"Allow"}],"Version":"2012-10-17"}`
	writerPolicy          = `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/writer"},
		"Action": "dynamodb:PutItem", "Resource": "*"}]}`
)

// MODEL (DynamoDB Local has no resource-based policies; the model answers
// GetResourcePolicy with the previous state for two calls after each change,
// as AWS's eventual consistency allows): the policy goes with CreateTable;
// the same document in another form (attached by someone else) is no
// change; a new document is one
// PutResourcePolicy with the revision read as ExpectedRevisionId, never
// repeated while reads lag; someone else's change is put back; removing it
// from the spec removes the one Tether attached, once.
func TestResourcePolicyOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{StaleReads: 2}, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.ResourcePolicy = policyDoc(t, readerPolicy) })
	f.converge(obj)
	if got := f.proxy.Calls()["PutResourcePolicy"]; got != 0 {
		t.Errorf("PutResourcePolicy calls = %d; CreateTable carries the policy", got)
	}
	f.steady(obj, 3)
	rev := f.policyRevision(obj)
	if rev == "" || obj.Status.ResourcePolicyRevisionID != rev {
		t.Fatalf("status revision %q, AWS's %q", obj.Status.ResourcePolicyRevisionID, rev)
	}

	// The same document in another form, attached by someone else: no change.
	if _, err := f.raw.PutResourcePolicy(context.Background(), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(obj.Status.TableArn),
		Policy: aws.String(readerPolicyReordered)}); err != nil {
		t.Fatal(err)
	}
	rev = f.policyRevision(obj)
	f.p.memoryOf(obj).policyChange = nil
	f.steady(obj, 2)

	obj.Spec.ResourcePolicy = policyDoc(t, writerPolicy)
	obj.Generation++
	f.proxy.ResetCounts()
	f.converge(obj)
	f.steady(obj, 3) // the model's reads lag behind: nothing is sent again
	if got := f.proxy.Calls()["PutResourcePolicy"]; got != 0 {
		t.Errorf("PutResourcePolicy sent again while reads lagged")
	}
	if newRev := f.policyRevision(obj); newRev == rev || obj.Status.ResourcePolicyRevisionID != newRev {
		t.Errorf("revision %q -> %q, status %q", rev, newRev, obj.Status.ResourcePolicyRevisionID)
	}

	// Someone else attaches another policy: put back.
	if _, err := f.raw.PutResourcePolicy(context.Background(), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(obj.Status.TableArn),
		Policy: aws.String(readerPolicy)}); err != nil {
		t.Fatal(err)
	}
	f.policyRevision(obj)                // past the model's stale reads
	f.p.memoryOf(obj).policyChange = nil // long after Tether's own change
	f.proxy.ResetCounts()
	f.converge(obj)
	if got := f.proxy.Calls()["PutResourcePolicy"]; got != 1 {
		t.Errorf("PutResourcePolicy calls = %d, want 1 to put the spec's back", got)
	}

	// Dropped from the spec: the policy Tether attached goes.
	obj.Spec.ResourcePolicy = nil
	obj.Generation++
	f.policyRevision(obj) // past the model's stale reads
	f.p.memoryOf(obj).policyChange = nil
	f.proxy.ResetCounts()
	f.converge(obj)
	f.steady(obj, 3)
	if got := f.proxy.Calls()["DeleteResourcePolicy"]; got != 0 {
		t.Errorf("DeleteResourcePolicy sent again while reads lagged")
	}
	if rev := f.policyRevision(obj); rev != "" {
		t.Errorf("policy still there (revision %s)", rev)
	}
	if obj.Status.ResourcePolicyRevisionID != "" {
		t.Errorf("status revision %q after the removal", obj.Status.ResourcePolicyRevisionID)
	}
}

// policyRevision reads AWS's current revision, past the model's stale reads.
func (f *modelFixture) policyRevision(obj *awsv1alpha1.DynamoDBTable) string {
	f.t.Helper()
	var rev string
	for range 5 {
		out, err := f.raw.GetResourcePolicy(context.Background(), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(obj.Status.TableArn)})
		rev = ""
		if err == nil {
			rev = aws.ToString(out.RevisionId)
		}
	}
	return rev
}

// MODEL: a policy someone else attached to a table whose spec has none is
// left alone, and costs no read at all.
func TestForeignResourcePolicyIsLeftAlone(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable()
	f.converge(obj)
	if _, err := f.raw.PutResourcePolicy(context.Background(), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(obj.Status.TableArn),
		Policy: aws.String(readerPolicy)}); err != nil {
		t.Fatal(err)
	}
	f.steady(obj, 2)
	if got := f.proxy.Calls()["GetResourcePolicy"]; got != 0 {
		t.Errorf("GetResourcePolicy calls = %d for a spec without a policy", got)
	}
}

// REAL PEER (DynamoDB Local): contributor insights and resource policies
// answer UnknownOperationException; the table is Ready, the status says
// what is left out, and neither API is called again.
func TestInsightsAndPolicyOnDynamoDBLocal(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.ContributorInsightsSpecification = insightsOn("")
		o.Spec.ResourcePolicy = policyDoc(t, readerPolicy)
	})
	f.converge(obj)
	if want := []string{plan.FeatureInsights, plan.FeaturePolicy}; !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	f.steady(obj, 3)
	if calls := f.proxy.Calls(); calls["ListContributorInsights"]+calls["GetResourcePolicy"] != 0 {
		t.Errorf("unsupported APIs called again: %v", calls)
	}
}

// MODEL: the newer features' reads are scheduled like TTL's and tags':
// only for a spec that uses them, and then every SecondaryReadInterval, not
// every poll; a plain table still costs three calls to create and one
// DescribeTable per poll.
func TestNewerFeatureReadsAreScheduledLikeTTL(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{SecondaryReadInterval: time.Hour})
	plain := newTable()
	f.proxy.ResetCounts()
	f.converge(plain)
	if got := f.proxy.CallsFor(plain.Name); got["DescribeTable"] != 2 || got["CreateTable"] != 1 || len(got) != 2 {
		t.Errorf("creating a plain table cost %v, want DescribeTable, CreateTable, DescribeTable", got)
	}
	f.proxy.ResetCounts()
	for range 3 {
		if _, err := f.pass(plain); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.proxy.Calls(); got["DescribeTable"] != 3 || len(got) != 1 {
		t.Errorf("3 polls of a plain table cost %v, want 3 DescribeTable", got)
	}

	full := newTable(withGSI("byCustomer", "customer", capacity(2, 2)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(2, 2)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: scalingPolicy(2, 10, 70)}
		o.Spec.ContributorInsightsSpecification = insightsOn("")
		o.Spec.ResourcePolicy = policyDoc(t, readerPolicy)
		o.Spec.PointInTimeRecoverySpecification = recovery(true, aws.Int32(10))
	})
	f.converge(full)
	f.proxy.ResetCounts()
	for range 3 {
		if obs, err := f.pass(full); err != nil || obs.Outcome != providers.OutcomeUpToDate {
			t.Fatalf("pass: %+v %v", obs, err)
		}
	}
	if got := f.proxy.Calls(); got["DescribeTable"] != 3 || len(got) != 1 {
		t.Errorf("3 polls cost %v, want 3 DescribeTable: the secondary reads wait for their interval", got)
	}
}

package dynamodb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
)

// sourceTable makes a table keyed by pk with items outside Tether,
// optionally with point-in-time recovery on, and returns its ARN.
func (f *fixture) sourceTable(name string, items int, pitr bool) string {
	return f.sourceTableKeyed(name, "pk", items, pitr)
}

func (f *fixture) sourceTableKeyed(name, key string, items int, pitr bool) string {
	f.t.Helper()
	ctx := context.Background()
	out, err := f.raw.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}}})
	if err != nil {
		f.t.Fatal(err)
	}
	for i := range items {
		if _, err := f.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name),
			Item: map[string]types.AttributeValue{key: &types.AttributeValueMemberS{Value: fmt.Sprint("item-", i)}}}); err != nil {
			f.t.Fatal(err)
		}
	}
	if pitr {
		if _, err := f.raw.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
			f.t.Fatal(err)
		}
	}
	return aws.ToString(out.TableDescription.TableArn)
}

func (f *fixture) itemCount(table string) int {
	f.t.Helper()
	out, err := f.raw.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	if err != nil {
		f.t.Fatal(err)
	}
	return int(out.Count)
}

// MODEL (DynamoDB Local has no restores; internal/ddbgap restores into
// DynamoDB Local, copying the items, and shows the new table CREATING a
// while): the table is made by one RestoreTableToPointInTime, never by
// CreateTable, and what a restore does not carry over (the stream, TTL,
// deletion protection) follows as ordinary steps; then it is a table like
// any other.
func TestRestoreToPointInTimeOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withStream("NEW_IMAGE"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
		o.Spec.DeletionProtectionEnabled = aws.Bool(false)
	})
	source := f.sourceTable(obj.Name+"-src", 3, true)
	obj.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: source, UseLatestRestorableTime: true}}
	f.proxy.ResetCounts()
	f.converge(obj)
	calls := f.proxy.Calls()
	if calls["RestoreTableToPointInTime"] != 1 || calls["CreateTable"] != 0 {
		t.Errorf("calls = %v, want one restore and no CreateTable", calls)
	}
	if n := f.itemCount(obj.Name); n != 3 {
		t.Errorf("restored items = %d, want 3", n)
	}
	d := f.describe(obj.Name)
	if d.RestoreSummary == nil || aws.ToString(d.RestoreSummary.SourceTableArn) != source {
		t.Errorf("restore summary = %+v", d.RestoreSummary)
	}
	if d.StreamSpecification == nil || !aws.ToBool(d.StreamSpecification.StreamEnabled) {
		t.Errorf("stream not applied after the restore: %+v", d.StreamSpecification)
	}
	if obj.Status.TableID == "" {
		t.Error("the restored table's identity is not on record")
	}
	f.steady(obj, 2)

	// Managed like any other table: a new index.
	withGSI("byCustomer", "customer", nil)(obj)
	obj.Generation++
	f.converge(obj)
	if got := indexNames(f.describe(obj.Name)); len(got) != 1 {
		t.Errorf("indexes = %v", got)
	}
}

// MODEL: restoring an on-demand backup; the spec's billing mode and
// throughput go with the restore as overrides.
func TestRestoreFromBackupOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(3, 2)
	})
	f.sourceTable(obj.Name+"-src", 2, false)
	backup, err := f.raw.CreateBackup(context.Background(), &dynamodb.CreateBackupInput{TableName: aws.String(obj.Name + "-src"), BackupName: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	obj.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{BackupArn: aws.ToString(backup.BackupDetails.BackupArn)}
	f.proxy.ResetCounts()
	f.converge(obj)
	if calls := f.proxy.Calls(); calls["RestoreTableFromBackup"] != 1 || calls["UpdateTable"] != 0 {
		t.Errorf("calls = %v, want one restore carrying the billing mode and throughput", calls)
	}
	d := f.describe(obj.Name)
	if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 3 || f.itemCount(obj.Name) != 2 {
		t.Errorf("restored table: throughput %+v, %d items", d.ProvisionedThroughput, f.itemCount(obj.Name))
	}
}

// MODEL: a source without point-in-time recovery, a time outside the
// window, a backup that does not exist: terminal, nothing created.
func TestRestoreRefusalsAreTerminalOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	noPITR := f.sourceTable(fmt.Sprintf("src-%d", tableSeq), 1, false)
	withPITR := f.sourceTable(fmt.Sprintf("src-pitr-%d", tableSeq), 1, true)
	for _, from := range []*awsv1alpha1.RestoreSource{
		{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: noPITR, UseLatestRestorableTime: true}},
		{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: withPITR, RestoreDateTime: &metav1.Time{Time: metav1.Now().AddDate(-1, 0, 0)}}},
		{BackupArn: withPITR + "/backup/01700000000000-missing"},
	} {
		obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.RestoreFrom = from })
		_, err := f.pass(obj)
		if te, ok := providers.AsTerminal(err); !ok || te.Reason != ReasonRestoreFailed {
			t.Errorf("restore %+v: err = %v, want terminal %s", from, err, ReasonRestoreFailed)
		}
		if f.exists(obj.Name) {
			t.Errorf("a table was created for %+v", from)
		}
	}
}

// REAL PEER (DynamoDB Local has no restore APIs): the object stops with
// RestoreFailed saying so; no empty table is created in its place.
func TestRestoreOnDynamoDBLocalCreatesNothing(t *testing.T) {
	f := localFixture(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: "arn:aws:dynamodb:ddblocal:000000000000:table/source", UseLatestRestorableTime: true}}
	})
	_, err := f.pass(obj)
	te, ok := providers.AsTerminal(err)
	if !ok || te.Reason != ReasonRestoreFailed || !strings.Contains(err.Error(), "cannot restore") {
		t.Fatalf("err = %v, want terminal %s", err, ReasonRestoreFailed)
	}
	if f.exists(obj.Name) || f.proxy.Calls()["CreateTable"] != 0 {
		t.Error("an empty table was created instead of the restore")
	}
	// Known now: the next object does not even ask.
	f.proxy.ResetCounts()
	if _, err := f.pass(newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.RestoreFrom = obj.Spec.RestoreFrom })); err == nil {
		t.Fatal("second restore did not fail")
	}
	if got := f.proxy.Calls()["RestoreTableToPointInTime"]; got != 0 {
		t.Errorf("RestoreTableToPointInTime called again (%d)", got)
	}
}

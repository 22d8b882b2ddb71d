package dynamodb

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Issue 23 item 7 and issue 39 item 7: whom a resource policy may grant
// access to. Only Deny statements grant nothing; an AWS principal is
// inside the account when it is the account id or an IAM or STS ARN of it
// in the table's partition; anything else ("*", a NotPrincipal, service
// and federated principals, another account, another partition's ARN with
// the same digits) is outside unless the AWSAccount lists that account, or
// "*". A statement whose principals are not fully understood (an account
// id as a JSON number, alone or in a list, element names in another case
// beside the usual ones, a principal kind IAM has not, an Allow naming no
// principal) refuses the policy: each of those passed before. The
// operator's own identity is trusted with any.
func TestPolicyPrincipalsOutsideTheAccount(t *testing.T) {
	statement := func(s string) string { return `{"Version": "2012-10-17", "Statement": ` + s + `}` }
	cases := []struct {
		name    string
		policy  string
		allowed []string
		outside string // a principal the refusal names, "" for none
	}{
		{"a role of the account", statement(`{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111111111111:role/reader"}, "Action": "dynamodb:GetItem", "Resource": "*"}`), nil, ""},
		{"the account id and an assumed role", statement(`[{"Effect": "Allow", "Principal": {"AWS": ["111111111111", "arn:aws:sts::111111111111:assumed-role/r/s"]}, "Action": "*", "Resource": "*"}]`), nil, ""},
		{"another account", statement(`{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), nil, "999999999999"},
		{"another account, allowed", statement(`{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), []string{"999999999999"}, ""},
		{"anyone", statement(`{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}`), []string{"999999999999"}, "*"},
		{"anyone, as AWS", statement(`{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "*", "Resource": "*"}`), nil, "*"},
		{"anyone, allowed", statement(`{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}`), []string{"*"}, ""},
		{"everyone but one", statement(`{"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::111111111111:root"}, "Action": "*", "Resource": "*"}`), nil, "*"},
		{"a service", statement(`{"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "*", "Resource": "*"}`), nil, "Service:events.amazonaws.com"},
		{"a federated user", statement(`{"Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"}, "Action": "*", "Resource": "*"}`), nil, "Federated:"},
		{"a unique id proves nothing", statement(`{"Effect": "Allow", "Principal": {"AWS": "AROAEXAMPLEID"}, "Action": "*", "Resource": "*"}`), nil, "AROAEXAMPLEID"},
		{"a deny grants nothing", statement(`{"Effect": "Deny", "Principal": "*", "Action": "dynamodb:DeleteTable", "Resource": "*"}`), nil, ""},
		// Issue 39 item 7: shapes the check did not read, each of which
		// it passed.
		{"an account id as a number", statement(`{"Effect": "Allow", "Principal": {"AWS": 999999999999}, "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"an account id as a number in a list", statement(`{"Effect": "Allow", "Principal": {"AWS": ["111111111111", 999999999999]}, "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"lower-case aws", statement(`{"Effect": "Allow", "Principal": {"aws": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"lower-case effect", statement(`{"effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), nil, "999999999999"},
		{"lower-case statement", `{"Version": "2012-10-17", "statement": {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}}`, nil, "999999999999"},
		{"Statement and statement", `{"Version": "2012-10-17", "Statement": {"Effect": "Deny", "Principal": "*", "Action": "*", "Resource": "*"}, "statement": {"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}}`, nil, "not fully understand"},
		{"another partition, the same digits", statement(`{"Effect": "Allow", "Principal": {"AWS": "arn:aws-cn:iam::111111111111:root"}, "Action": "*", "Resource": "*"}`), nil, "arn:aws-cn:iam::111111111111:root"},
		{"another partition, its account allowed", statement(`{"Effect": "Allow", "Principal": {"AWS": "arn:aws-us-gov:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), []string{"999999999999"}, "arn:aws-us-gov:iam::999999999999:root"},
		{"a principal kind IAM has not", statement(`{"Effect": "Allow", "Principal": {"Anyone": "x"}, "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"a principal that is neither * nor a map", statement(`{"Effect": "Allow", "Principal": "arn:aws:iam::999999999999:root", "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"an allow naming no principal", statement(`{"Effect": "Allow", "Action": "*", "Resource": "*"}`), nil, "not fully understand"},
		{"a statement that is no object", statement(`["Allow"]`), nil, "not fully understand"},
		{"an effect that is not exactly Deny is an allow", statement(`{"Effect": "deny", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "*", "Resource": "*"}`), nil, "999999999999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol, err := plan.SpecPolicy(&runtime.RawExtension{Raw: []byte(c.policy)})
			if err != nil {
				t.Fatal(err)
			}
			ep := &access.Endpoint{Identity: "team", Region: "us-east-1", AccountID: "111111111111", AWSAccount: account("team", roleA, func(a *awsv1alpha1.AWSAccount) {
				a.Spec.Tenancy.PolicyPrincipalAccounts = c.allowed
			})}
			err = checkPolicyPrincipals(ep, newTable(), pol)
			switch {
			case c.outside == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.outside != "" && (!isRetryReason(err, reasonPolicyNotAllowed) || !strings.Contains(err.Error(), c.outside)):
				t.Errorf("err = %v, want %s naming %s", err, reasonPolicyNotAllowed, c.outside)
			}
			if err := checkPolicyPrincipals(&access.Endpoint{}, newTable(), pol); err != nil {
				t.Errorf("the operator's own identity refused: %v", err)
			}
		})
	}
}

// Issue 23 item 7, MODEL (restores and backups are internal/ddbgap's, in
// front of DynamoDB Local; STS is internal/ststest): one AWSAccount admits
// two namespaces. team-b may not restore team-a's table, nor a backup of
// a table it names now but did not hold then (an earlier table of that
// name, another namespace's); team-a restores its own; and an AWSAccount
// that allows any source of the account lets team-b restore. A refused
// restore makes no restore call.
func TestRestoreSourcesOfAnAccountOnTheModel(t *testing.T) {
	gap := ddbgap.New(dynamoDBLocal(t).URL, ddbgap.Options{Transition: 50 * time.Millisecond})
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	f := newAccountsFixture(t, url, Options{}, ststest.Options{},
		namespace("team-a", nil, nil), namespace("team-b", nil, nil), account("shared", roleA, admitting("team-a", "team-b")))
	ctx := context.Background()
	db := rawAs(t, url, keyA, "us-east-1")
	hold := func(obj *awsv1alpha1.DynamoDBTable) {
		t.Helper()
		f.converge(obj)
		if err := f.reader.Create(ctx, obj.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	pitr := func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	}
	source := newTable(inNamespace("team-a"), usingAccount("shared"), pitr)
	hold(source)
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(source.Name),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	fromSource := &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: source.Status.TableArn, UseLatestRestorableTime: true}}
	restoring := func(ns string, from *awsv1alpha1.RestoreSource) *awsv1alpha1.DynamoDBTable {
		return newTable(inNamespace(ns), usingAccount("shared"), func(o *awsv1alpha1.DynamoDBTable) { o.Spec.RestoreFrom = from })
	}
	refused := func(obj *awsv1alpha1.DynamoDBTable, why string) {
		t.Helper()
		f.proxy.ResetCounts()
		if _, err := f.pass(obj); !isRetryReason(err, reasonRestoreNotAllowed) || !strings.Contains(err.Error(), why) {
			t.Errorf("restore %+v from %s: %v, want %s saying %q", obj.Spec.RestoreFrom, obj.Namespace, err, reasonRestoreNotAllowed, why)
		}
		if calls := f.proxy.Calls(); calls["RestoreTableToPointInTime"]+calls["RestoreTableFromBackup"]+calls["CreateTable"] != 0 {
			t.Errorf("calls for a refused restore: %v", calls)
		}
	}

	refused(restoring("team-b", fromSource), "no DynamoDBTable in this namespace holds")
	f.converge(restoring("team-a", fromSource))

	// team-b held a table of this name once, and backed it up; team-a
	// holds the table of that name now. Its backup is not team-a's.
	earlier := newTable(inNamespace("team-b"), usingAccount("shared"))
	f.converge(earlier)
	backup, err := db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(earlier.Name), BackupName: aws.String("b")})
	if err != nil {
		t.Fatal(err)
	}
	f.deleteFully(earlier)
	now := newTable(inNamespace("team-a"), usingAccount("shared"), func(o *awsv1alpha1.DynamoDBTable) { o.Name = earlier.Name })
	hold(now)
	fromBackup := &awsv1alpha1.RestoreSource{BackupArn: aws.ToString(backup.BackupDetails.BackupArn)}
	refused(restoring("team-a", fromBackup), "not a backup of the table "+now.Name+" holds")
	// Its own backup team-a may restore.
	own, err := db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(now.Name), BackupName: aws.String("own")})
	if err != nil {
		t.Fatal(err)
	}
	f.converge(restoring("team-a", &awsv1alpha1.RestoreSource{BackupArn: aws.ToString(own.BackupDetails.BackupArn)}))

	// A table restored from team-a's outside Tether: team-b cannot claim it
	// as the work of its own interrupted restore with a create-started note
	// (annotations are anyone's to write): it may not read that source.
	claimed := restoring("team-b", fromSource)
	if _, err := db.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: aws.String(source.Status.TableArn),
		TargetTableName: aws.String(claimed.Name), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	claimed.Annotations = map[string]string{commonv1alpha1.AnnotationCreateStarted: "2000-01-01T00:00:00Z"}
	if _, err := f.pass(claimed); !isTerminalReason(err, ReasonNotOwned) {
		t.Errorf("a restore of another namespace's table claimed by a note: %v, want %s", err, ReasonNotOwned)
	}

	// The AWSAccount widens it to any table of the account.
	acct := &awsv1alpha1.AWSAccount{}
	if err := f.reader.Get(ctx, client.ObjectKey{Name: "shared"}, acct); err != nil {
		t.Fatal(err)
	}
	acct.Spec.Tenancy.RestoreSources = awsv1alpha1.RestoreSourcesAccount
	acct.Generation++
	if err := f.reader.Update(ctx, acct); err != nil {
		t.Fatal(err)
	}
	f.converge(restoring("team-b", fromSource))
}

// Issue 23 item 13, MODEL with tagging: a restored table carries Tether's
// owner tags as soon as Create returns (the restore APIs take none), not
// only after a later pass, so a crash right after it leaves a table whose
// owner is on it.
func TestARestoredTableIsTaggedRightAwayOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Tagging: true}, Options{})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "orders"} })
	source := f.sourceTable(obj.Name+"-src", 1, true)
	obj.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: source, UseLatestRestorableTime: true}}
	if _, err := f.pass(obj); err != nil {
		t.Fatal(err)
	}
	tags, err := listTags(context.Background(), f.raw, obj.Status.TableArn)
	if err != nil {
		t.Fatal(err)
	}
	if tags[TagOwnerUID] != string(obj.UID) || tags["team"] != "orders" {
		t.Errorf("tags right after the restore = %v, want the owner tags and the spec's", tags)
	}
}

// Issue 23 item 13 and issue 39 item 5, MODEL without tagging: a restore
// whose answer was lost (the first attempt made the table, its answer
// never came back, and the SDK's retry met TableAlreadyExistsException) is
// recognised by Tether's own record of the restore it began: the table was
// restored from the source it sent, after it began. That record is in
// memory: a manager restarted since has none, and the create-started note
// on the object, anyone's to write, proves nothing (it claimed a table
// restored outside Tether before); nor does a table restored from another
// source, or one made before the restore began.
func TestAnInterruptedRestoreIsRecognisedOnTheModel(t *testing.T) {
	gap := ddbgap.New(dynamoDBLocal(t).URL, ddbgap.Options{Transition: 50 * time.Millisecond})
	gapURL, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	f := newFixture(t, losingFirstAnswer(t, gapURL, "RestoreTableToPointInTime"), Options{})
	obj := newTable()
	source := f.sourceTable(obj.Name+"-src", 1, true)
	other := f.sourceTable(obj.Name+"-other", 1, true)
	obj.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: source, UseLatestRestorableTime: true}}
	f.converge(obj)
	if n := f.proxy.Calls()["RestoreTableToPointInTime"]; n < 2 {
		t.Fatalf("restore attempts = %d, want the lost one and the SDK's retry", n)
	}
	if id := TableIdentity(f.describe(obj.Name)); obj.Status.TableID != id {
		t.Errorf("table id = %q, want the restored table's %q", obj.Status.TableID, id)
	}

	noted := func(o *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
		o.Name = obj.Name
		o.Annotations = map[string]string{commonv1alpha1.AnnotationCreateStarted: time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}
		return o
	}
	lost := noted(obj.DeepCopy())
	lost.Status = awsv1alpha1.DynamoDBTableStatus{}
	for name, o := range map[string]*awsv1alpha1.DynamoDBTable{
		"after a restart, with a create-started note": lost,
		"another source": noted(newTable(func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{SourceTableArn: other, UseLatestRestorableTime: true}}
		})),
	} {
		restarted := newFixture(t, gapURL, Options{})
		if _, err := restarted.pass(o); !isTerminalReason(err, ReasonNotOwned) {
			t.Errorf("%s: %v, want %s", name, err, ReasonNotOwned)
		}
		if calls := restarted.proxy.Calls(); calls["TagResource"]+calls["UpdateTable"]+calls["DeleteTable"] != 0 {
			t.Errorf("%s: writes to a table not proven the object's: %v", name, calls)
		}
	}
}

// losingFirstAnswer is an endpoint in front of url whose first call of
// operation reaches url, but whose answer is lost on the way back: the
// caller gets a 500 instead, as when a connection drops after AWS acted.
func losingFirstAnswer(t *testing.T, url, operation string) string {
	t.Helper()
	target, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	var lost atomic.Bool
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		if strings.HasSuffix(r.Request.Header.Get("X-Amz-Target"), "."+operation) && lost.CompareAndSwap(false, true) {
			_ = r.Body.Close()
			r.StatusCode = http.StatusInternalServerError
			body := `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"the answer was lost"}`
			r.Body = io.NopCloser(strings.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Set("Content-Length", fmt.Sprint(len(body)))
			r.Header.Del("X-Amz-Crc32")
		}
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue 23 item 14, on dynalite (which has tagging): an AWSAccount's tags
// join the operator's default tags, under the spec's; those it enforces win
// over the spec's, which the Ready message says.
func TestEnforcedTagsWinOverTheSpec(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	f := newAccountsFixture(t, server.URL, Options{DefaultTags: map[string]string{"cost-center": "cc-{{.Namespace}}", "owner": "{{.Name}}"}},
		ststest.Options{}, namespace("team-a", nil, nil), account("team-a", roleA, admitting("team-a"), func(a *awsv1alpha1.AWSAccount) {
			a.Spec.Tenancy.Tags = map[string]string{"abac-team": "orders", "contact": "platform@example.com"}
			a.Spec.Tenancy.EnforcedTagKeys = []string{"cost-center", "abac-team"}
		}))
	obj := newTable(inNamespace("team-a"), usingAccount("team-a"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Tags = map[string]string{"cost-center": "free", "abac-team": "payments", "contact": "me@example.com", "owner": "me"}
	})
	f.converge(obj)
	obs, err := f.observe(obj)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := listTags(context.Background(), f.raw, obj.Status.TableArn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cost-center": "cc-team-a", "abac-team": "orders", "contact": "me@example.com", "owner": "me"}
	for k, v := range want {
		if tags[k] != v {
			t.Errorf("tag %s = %q, want %q (all: %v)", k, tags[k], v, tags)
		}
	}
	if !strings.Contains(obs.Message, "spec.tags abac-team, cost-center: replaced by the tags AWSAccount team-a enforces") {
		t.Errorf("Ready message = %q", obs.Message)
	}
	if got := slices.Sorted(maps.Keys(want)); !slices.Equal(obj.Status.ManagedTagKeys, got) {
		t.Errorf("managed tag keys = %v, want %v", obj.Status.ManagedTagKeys, got)
	}
}

package dynamodb

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// The accounts of these tests: roles in the STS model whose sessions sign
// with their own access key id, so that DynamoDB Local (one database per
// access key id and region) keeps each account's tables apart. STS is a
// model here (internal/ststest); DynamoDB Local and the SDK's stscreds
// provider are the real thing.
const (
	roleA = "arn:aws:iam::111111111111:role/tether"
	roleB = "arn:aws:iam::222222222222:role/tether"
	keyA  = "accountakey"
	keyB  = "accountbkey"
)

// accountsFixture is a fixture whose adapter resolves AWSAccounts and
// Namespaces from a fake cache, with an STS model answering AssumeRole.
type accountsFixture struct {
	*fixture
	sts    *ststest.Server
	reader client.Client
}

func newAccountsFixture(t *testing.T, url string, opts Options, stsOpts ststest.Options, objs ...client.Object) *accountsFixture {
	t.Helper()
	if stsOpts.Roles == nil {
		stsOpts.Roles = []ststest.Role{
			{ARN: roleA, Trusts: []string{"tethertest"}, AccessKeyID: keyA},
			{ARN: roleB, Trusts: []string{"tethertest"}, ExternalID: "team-b-ext", AccessKeyID: keyB},
		}
	}
	srv, err := ststest.Start(stsOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{awsv1alpha1.AddToScheme, corev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithIndex(&awsv1alpha1.DynamoDBTable{}, IndexTableName, TableNameOf).
		WithObjects(objs...).Build()
	opts.Reader = reader
	f := newFixture(t, url, opts)
	// After newFixture, whose environment names the process's STS model.
	t.Setenv("AWS_ENDPOINT_URL_STS", srv.URL)
	return &accountsFixture{fixture: f, sts: srv, reader: reader}
}

func namespace(name string, labels, annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}}
}

func account(name, role string, mutate ...func(*awsv1alpha1.AWSAccount)) *awsv1alpha1.AWSAccount {
	a := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: name, UID: apitypes.UID(uuid.NewUUID()), Generation: 1},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: role}}}
	for _, m := range mutate {
		m(a)
	}
	return a
}

func admitting(names ...string) func(*awsv1alpha1.AWSAccount) {
	return func(a *awsv1alpha1.AWSAccount) { a.Spec.NamespaceSelector.Names = names }
}

func inNamespace(ns string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) { o.Namespace = ns }
}

func usingAccount(name string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) { o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: name} }
}

// rawAs is a client of DynamoDB Local as one access key id in one region:
// one account's view.
func rawAs(t *testing.T, url, key, region string) *dynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

func tableNames(t *testing.T, db *dynamodb.Client) []string {
	t.Helper()
	out, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}

// Two accounts, reached through two AWSAccounts (one by spec.accountRef,
// one by the namespace's default, with an external ID), really see two
// sets of tables: the same table name in both is no conflict, each table is
// in its own account's database of DynamoDB Local, and the status says
// account id and region. In one account the same name is a Conflict.
func TestTwoAccountsSeeTwoSetsOfTables(t *testing.T) {
	url := dynamoDBLocal(t).URL
	f := newAccountsFixture(t, url, Options{}, ststest.Options{},
		namespace("team-a", nil, nil),
		namespace("team-b", map[string]string{"team": "b"}, map[string]string{awsv1alpha1.AnnotationNamespaceAccount: "team-b"}),
		account("team-a", roleA, admitting("team-a")),
		account("team-b", roleB, func(a *awsv1alpha1.AWSAccount) {
			a.Spec.AssumeRole.ExternalID = "team-b-ext"
			a.Spec.Region = "eu-west-1"
			a.Spec.NamespaceSelector.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
		}))
	a := newTable(inNamespace("team-a"), usingAccount("team-a"))
	b := newTable(inNamespace("team-b"), func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = a.Name })
	f.converge(a)
	f.converge(b)

	if a.Status.AccountID != "111111111111" || a.Status.Region != "us-east-1" || a.Status.Account != "team-a" {
		t.Errorf("team-a status: account %q (%q), region %q", a.Status.AccountID, a.Status.Account, a.Status.Region)
	}
	if b.Status.AccountID != "222222222222" || b.Status.Region != "eu-west-1" || b.Status.Account != "team-b" {
		t.Errorf("team-b status: account %q (%q), region %q", b.Status.AccountID, b.Status.Account, b.Status.Region)
	}
	// Other tests use these accounts too (one DynamoDB Local for the
	// package): each sees its table; the table is in no other database.
	if got := tableNames(t, rawAs(t, url, keyA, "us-east-1")); !slices.Contains(got, a.Name) {
		t.Errorf("account A sees %v, want %s among them", got, a.Name)
	}
	if got := tableNames(t, rawAs(t, url, keyB, "eu-west-1")); !slices.Contains(got, a.Name) {
		t.Errorf("account B sees %v, want its own %s among them", got, a.Name)
	}
	if got := tableNames(t, rawAs(t, url, keyB, "us-east-1")); slices.Contains(got, a.Name) {
		t.Errorf("account B in us-east-1 sees %v: the region was not resolved from the AWSAccount", got)
	}
	if f.exists(a.Name) {
		t.Error("a team's table was made with the operator's own identity")
	}
	if calls := f.sts.Calls(); len(calls) != 2 || calls[1].ExternalID != "team-b-ext" || calls[0].SessionName != "tether-team-a" {
		t.Errorf("AssumeRole calls = %+v, want one per account (cached), with the external id and the default session name", calls)
	}

	// The same name in the same account: the later object is Conflict.
	twin := newTable(inNamespace("team-a"), usingAccount("team-a"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Name, o.Spec.TableName = "twin", a.Name
		o.CreationTimestamp = metav1.NewTime(time.Now().Add(time.Hour))
	})
	for _, o := range []*awsv1alpha1.DynamoDBTable{a, b, twin} {
		if err := f.reader.Create(context.Background(), o.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	if obs, err := f.pass(twin); err != nil || obs.Outcome != providers.OutcomeWait || obs.Wait.Reason != providers.ReasonConflict ||
		!strings.Contains(obs.Wait.Message, "AWSAccount team-a") {
		t.Errorf("same name in one account: %+v, %v; want a %s wait", obs, err, providers.ReasonConflict)
	}
	if _, err := f.pass(b); err != nil {
		t.Errorf("same name in another account: %v, want no conflict", err)
	}
}

func isRetryReason(err error, reason string) bool {
	ra, ok := providers.AsRetryAfter(err)
	return ok && ra.Reason == reason
}

// A namespace the account does not admit gets a clear condition and costs
// no AWS call at all (neither STS nor DynamoDB); so do a missing
// AWSAccount and, when the operator requires one, a table that names none.
// Removing a namespace from the selector stops management, deletes nothing.
func TestTablesAnAccountDoesNotAdmitMakeNoAWSCall(t *testing.T) {
	f := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{},
		namespace("team-a", nil, nil), namespace("team-c", map[string]string{"team": "c"}, nil),
		account("team-a", roleA, admitting("team-a")))
	cases := []struct {
		name   string
		obj    *awsv1alpha1.DynamoDBTable
		reason string
	}{
		{"not admitted", newTable(inNamespace("team-c"), usingAccount("team-a")), reasonAccountNotAllowed},
		{"no such account", newTable(inNamespace("team-a"), usingAccount("nobody")), ReasonAccountNotFound},
	}
	for _, c := range cases {
		_, err := f.pass(c.obj)
		if !isRetryReason(err, c.reason) {
			t.Errorf("%s: %v, want %s", c.name, err, c.reason)
		}
		if err := f.delete(c.obj); !isRetryReason(err, c.reason) || !strings.Contains(err.Error(), "tether.dev/reconcile: paused") {
			t.Errorf("%s: delete %v, want %s with the way to let go", c.name, err, c.reason)
		}
	}
	if n := f.proxy.Total(); n != 0 || len(f.sts.Calls()) != 0 {
		t.Errorf("AWS calls for tables that may not use the account: DynamoDB %v, STS %d", f.proxy.Calls(), len(f.sts.Calls()))
	}

	// --aws-require-account (issue 23 item 11): the operator's own identity
	// serves its own namespace alone.
	required := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{RequireAccount: true, OperatorNamespace: "tether-system"},
		ststest.Options{}, namespace("default", nil, nil), namespace("tether-system", nil, nil))
	if _, err := required.pass(newTable()); !isRetryReason(err, reasonAccountRequired) || required.proxy.Total() != 0 {
		t.Errorf("no account with --aws-require-account: %v (%d calls)", err, required.proxy.Total())
	}
	required.converge(newTable(inNamespace("tether-system")))

	// Admitted, converged; then the namespace leaves the selector.
	obj := newTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(obj)
	acct := &awsv1alpha1.AWSAccount{}
	if err := f.reader.Get(context.Background(), client.ObjectKey{Name: "team-a"}, acct); err != nil {
		t.Fatal(err)
	}
	acct.Spec.NamespaceSelector.Names = []string{"someone-else"}
	if err := f.reader.Update(context.Background(), acct); err != nil {
		t.Fatal(err)
	}
	f.proxy.ResetCounts()
	if _, err := f.pass(obj); !isRetryReason(err, reasonAccountNotAllowed) {
		t.Fatalf("after the namespace left the selector: %v", err)
	}
	if err := f.delete(obj); err == nil {
		t.Fatal("delete went on for a namespace the account no longer admits")
	}
	if f.proxy.Total() != 0 {
		t.Errorf("calls after the namespace left the selector: %v", f.proxy.Calls())
	}
	if got := tableNames(t, rawAs(t, dynamoDBLocal(t).URL, keyA, "us-east-1")); !slices.Contains(got, obj.Name) {
		t.Errorf("the table went: account A has %v", got)
	}
}

// AWS refusing the role is AccessDenied with AWS's message; no table of the
// account asks STS again until the AWSAccount changes or the table's own
// object does; then it works once the trust is fixed.
func TestAssumeRoleDenialIsNotRetriedUntilTheAccountOrObjectChanges(t *testing.T) {
	f := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{},
		namespace("team-a", nil, nil), account("team-a", roleA, admitting("team-a")))
	f.sts.Deny(roleA, true)
	objs := []*awsv1alpha1.DynamoDBTable{newTable(inNamespace("team-a"), usingAccount("team-a")), newTable(inNamespace("team-a"), usingAccount("team-a"))}
	for range 3 {
		for _, o := range objs {
			_, err := f.pass(o)
			if !isRetryReason(err, access.ReasonAccessDenied) || !strings.Contains(err.Error(), "is not authorized to perform: sts:AssumeRole on resource: "+roleA) {
				t.Fatalf("err = %v, want %s with AWS's message", err, access.ReasonAccessDenied)
			}
			if ra, _ := providers.AsRetryAfter(err); ra.Delay < 5*time.Minute {
				t.Errorf("denied: retry after %s, want a long wait", ra.Delay)
			}
		}
	}
	if n := f.sts.CallsFor(roleA); n != 1 {
		t.Errorf("AssumeRole calls = %d for 6 passes of 2 tables, want 1", n)
	}
	if f.proxy.Total() != 0 {
		t.Errorf("DynamoDB calls without credentials: %v", f.proxy.Calls())
	}

	// The trust is fixed; the object changes: it asks again, once.
	f.sts.Deny(roleA, false)
	objs[0].Generation++
	f.converge(objs[0])
	if n := f.sts.CallsFor(roleA); n != 2 {
		t.Errorf("AssumeRole calls = %d, want one more after the object changed", n)
	}
	// And the account's other table, unchanged, works too now that the
	// session has credentials.
	f.converge(objs[1])

	// A change of the AWSAccount is a new session: it asks again.
	acct := &awsv1alpha1.AWSAccount{}
	_ = f.reader.Get(context.Background(), client.ObjectKey{Name: "team-a"}, acct)
	acct.Spec.AssumeRole.SessionName = "renamed"
	acct.Generation++
	if err := f.reader.Update(context.Background(), acct); err != nil {
		t.Fatal(err)
	}
	f.converge(objs[1])
	if calls := f.sts.Calls(); calls[len(calls)-1].SessionName != "renamed" {
		t.Errorf("the changed AWSAccount was not used: %+v", calls[len(calls)-1])
	}
}

// Credentials that expire are refreshed by the SDK's cache (another
// AssumeRole) without a failed call; credentials AWS says are expired or
// unknown (revoked) fail the pass with AccessDenied and are assumed again
// on the next one.
func TestExpiredAndRevokedCredentialsAreAssumedAgain(t *testing.T) {
	f := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{Lifetime: access.CredentialsExpiryWindow + 2*time.Second},
		namespace("team-a", nil, nil), account("team-a", roleA, admitting("team-a")))
	obj := newTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(obj)
	first := f.sts.CallsFor(roleA)
	deadline := time.Now().Add(20 * time.Second)
	for f.sts.CallsFor(roleA) == first && time.Now().Before(deadline) {
		if _, err := f.pass(obj); err != nil {
			t.Fatalf("pass while credentials expire: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if f.sts.CallsFor(roleA) == first {
		t.Fatal("credentials were not refreshed before they expired")
	}

	// Revoked: on credentials of the usual lifetime, so that no refresh
	// for expiry (every second or two above) adds to the count.
	f = newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{},
		namespace("team-a", nil, nil), account("team-a", roleA, admitting("team-a")))
	obj = newTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(obj)
	before := f.sts.CallsFor(roleA)
	f.proxy.SetRules(faultproxy.Rule{Operation: "DescribeTable", Share: 1, Limit: 1, Fault: faultproxy.Fault{
		Status: 400, Type: "ExpiredTokenException", Message: "The security token included in the request is expired"}})
	if _, err := f.pass(obj); !isRetryReason(err, access.ReasonAccessDenied) {
		t.Fatalf("revoked credentials: %v, want %s", err, access.ReasonAccessDenied)
	}
	if _, err := f.pass(obj); err != nil {
		t.Fatalf("after revoked credentials: %v", err)
	}
	if f.sts.CallsFor(roleA) != before+1 {
		t.Errorf("AssumeRole calls %d -> %d, want one more after AWS said the token expired", before, f.sts.CallsFor(roleA))
	}
}

// A role chain: the account's role trusts only a hub role, which the
// operator assumes first.
func TestRoleChainThroughAHubRole(t *testing.T) {
	const hub = "arn:aws:iam::999999999999:role/hub"
	url := dynamoDBLocal(t).URL
	f := newAccountsFixture(t, url, Options{}, ststest.Options{Roles: []ststest.Role{
		{ARN: hub, Trusts: []string{"tethertest"}, AccessKeyID: "hubkey"},
		{ARN: roleA, Trusts: []string{"hubkey"}, AccessKeyID: keyA},
	}}, namespace("team-a", nil, nil), account("team-a", roleA, admitting("team-a"), func(a *awsv1alpha1.AWSAccount) {
		a.Spec.ViaRoles = []awsv1alpha1.AssumeRole{{RoleARN: hub}}
	}))
	obj := newTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(obj)
	if got := tableNames(t, rawAs(t, url, keyA, "us-east-1")); !slices.Contains(got, obj.Name) {
		t.Errorf("account A sees %v, want %s among them", got, obj.Name)
	}
	if calls := f.sts.Calls(); len(calls) != 2 || calls[0].RoleARN != hub || calls[1].Caller != "hubkey" {
		t.Errorf("calls = %+v, want the hub, then the account's role as the hub", calls)
	}
}

// A table whose namespace's default account changes under it stays where
// it is: Tether refuses to follow (LocationChanged) and touches neither.
func TestATableDoesNotMoveWithItsNamespaceDefault(t *testing.T) {
	f := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{},
		namespace("team-a", nil, map[string]string{awsv1alpha1.AnnotationNamespaceAccount: "team-a"}),
		account("team-a", roleA, admitting("team-a")), account("team-b", roleB, admitting("team-a")))
	obj := newTable(inNamespace("team-a"))
	f.converge(obj)
	ns := &corev1.Namespace{}
	_ = f.reader.Get(context.Background(), client.ObjectKey{Name: "team-a"}, ns)
	ns.Annotations[awsv1alpha1.AnnotationNamespaceAccount] = "team-b"
	if err := f.reader.Update(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	f.proxy.ResetCounts()
	// team-b's role is in another AWS account.
	if _, err := f.pass(obj); !isRetryReason(err, reasonAccountChanged) {
		t.Fatalf("err = %v, want %s", err, reasonAccountChanged)
	}
	if err := f.delete(obj); !isRetryReason(err, reasonAccountChanged) {
		t.Fatalf("delete: %v, want %s", err, reasonAccountChanged)
	}
	if f.proxy.Total() != 0 {
		t.Errorf("calls for a moved object: %v", f.proxy.Calls())
	}

	// Back to team-a, whose region then changes under the table.
	ns.Annotations[awsv1alpha1.AnnotationNamespaceAccount] = "team-a"
	if err := f.reader.Update(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	f.converge(obj)
	a := &awsv1alpha1.AWSAccount{}
	_ = f.reader.Get(context.Background(), client.ObjectKey{Name: "team-a"}, a)
	a.Spec.Region = "eu-west-1"
	if err := f.reader.Update(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pass(obj); !isRetryReason(err, reasonLocationChanged) {
		t.Fatalf("err = %v, want %s", err, reasonLocationChanged)
	}
}

package dynamodb

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apitypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// A joined table's local secondary indexes are the source's: they are no
// mismatch with its spec, which cannot declare them; its key schema still
// is. Any other table's are compared as before.
func TestImmutableViewOfAJoinedTable(t *testing.T) {
	spec := awsv1alpha1.DynamoDBTableSpec{
		AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
	}
	withLSI := &types.TableDescription{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndexDescription{{IndexName: aws.String("bySk"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}
	otherKey := &types.TableDescription{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	}
	joined := spec
	joined.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"}
	cases := []struct {
		name string
		spec awsv1alpha1.DynamoDBTableSpec
		d    *types.TableDescription
		want string
	}{
		{"joined, the source's LSI", joined, withLSI, ""},
		{"joined, another key schema", joined, otherKey, "keySchema"},
		{"not joined, an LSI the spec lacks", spec, withLSI, "localSecondaryIndexes"},
	}
	for _, c := range cases {
		obj := &awsv1alpha1.DynamoDBTable{Spec: c.spec}
		if got := plan.ImmutableMismatch(&obj.Spec, immutableView(obj, c.d)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if withLSI.LocalSecondaryIndexes == nil {
		t.Error("the description AWS gave was changed")
	}
}

// A joined table is Ready only as a member of a global table; any other
// table, or one not ACTIVE yet, is no concern of notJoined. A plain table is
// UnsupportedByEndpoint only when Tether's own record shows the join it
// sent came out plain; one seen a member before, or one of no join of this
// process (a restart), left its global table or saw it dissolved:
// GlobalTableNotMember.
func TestNotJoined(t *testing.T) {
	ep := &access.Endpoint{Region: "eu-west-1"}
	joiner := func(uid string) *awsv1alpha1.DynamoDBTable {
		return &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{UID: apitypes.UID(uid)}, Spec: awsv1alpha1.DynamoDBTableSpec{TableName: "orders-" + uid,
			GlobalTableSource: &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"}}}
	}
	member := &types.TableDescription{TableStatus: types.TableStatusActive, GlobalTableVersion: aws.String("2019.11.21"),
		Replicas: []types.ReplicaDescription{{RegionName: aws.String("us-east-1")}}}
	plain := &types.TableDescription{TableStatus: types.TableStatusActive}
	cases := []struct {
		name string
		obj  *awsv1alpha1.DynamoDBTable
		// sent: Tether's join record; seen: the table was seen a member first.
		sent, seen bool
		d          *types.TableDescription
		want       string
	}{
		{"a member", joiner("a"), true, false, member, ""},
		{"a plain table made of the join Tether sent", joiner("b"), true, false, plain, ReasonUnsupportedByEndpoint},
		{"still CREATING", joiner("c"), true, false, &types.TableDescription{TableStatus: types.TableStatusCreating}, ""},
		{"no join asked", &awsv1alpha1.DynamoDBTable{}, false, false, plain, ""},
		{"a member once, plain now (it or its source left)", joiner("d"), true, true, plain, ReasonGlobalTableNotMember},
		{"plain, of no join this process sent (a restart)", joiner("e"), false, false, plain, ReasonGlobalTableNotMember},
	}
	for _, c := range cases {
		p := &Provider{}
		if c.sent {
			p.joins.mark(ep.TableKey(c.obj.ResolvedTableName()), joinRecord{UID: string(c.obj.UID), source: c.obj.Spec.GlobalTableSource.TableArn})
		}
		if c.seen {
			p.notJoined(ep, c.obj, member)
		}
		if got, _, _ := p.notJoined(ep, c.obj, c.d); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// joinCheckWorld is a joining AWSAccount (account 222222222222, namespace
// "join" admitted to join account 111111111111's tables) and a source
// AWSAccount (111111111111, letting namespace "join" of 222222222222 join
// its tables), on a fake API server reader: checkJoin makes no AWS call.
func joinCheckWorld(t *testing.T, objects ...client.Object) (*Provider, *access.Endpoint) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	joinAcct := account("join-account", "arn:aws:iam::222222222222:role/tether", func(a *awsv1alpha1.AWSAccount) {
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{SourceAccounts: []string{"111111111111"},
			JoinNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{"join"}}}
	})
	srcAcct := account("src-account", "arn:aws:iam::111111111111:role/tether", func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{"src"}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{ReplicaAccounts: []string{"222222222222"},
			ReplicaNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{"join"}}}
	})
	b := fake.NewClientBuilder().WithScheme(scheme).WithIndex(&awsv1alpha1.DynamoDBTable{}, IndexTableName, TableNameOf).
		WithObjects(joinAcct, srcAcct, namespace("src", nil, nil))
	for _, o := range objects {
		b = b.WithObjects(o)
	}
	p := New(Options{Reader: b.Build()})
	return p, &access.Endpoint{Region: "eu-west-1", Identity: joinAcct.Name, Account: "222222222222", AccountID: "222222222222", AWSAccount: joinAcct}
}

// checkJoin fails closed: a joiner whose namespace is not found, a
// DynamoDBTable of the source's table name that does not resolve (it may
// hold the source, whose side's consent cannot be asked), and a holder
// whose account id is not known yet (the operator's own identity before
// STS answers) are never an admission: the first two are refused
// (GlobalTableSourceNotAllowed), the last waits. Before, each returned no
// error and the join went ahead unchecked.
func TestCheckJoinFailsClosed(t *testing.T) {
	const srcArn = "arn:aws:dynamodb:us-east-1:111111111111:table/orders"
	joiner := func(ns string) *awsv1alpha1.DynamoDBTable {
		return newTable(inNamespace(ns), func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.TableName, o.Spec.Region = "orders", "eu-west-1"
			o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "join-account"}
			o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: srcArn}
		})
	}
	holder := func(mutate func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
		return newTable(inNamespace("src"), func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.TableName, o.Spec.Region = "orders", "us-east-1"
			o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "src-account"}
			mutate(o)
		})
	}
	ctx := context.Background()

	// The control case: both sides admit it.
	obj := joiner("join")
	p, ep := joinCheckWorld(t, namespace("join", nil, nil), holder(func(*awsv1alpha1.DynamoDBTable) {}))
	if _, err := p.checkJoin(ctx, ep, obj); err != nil {
		t.Fatalf("an admitted join: %v", err)
	}

	p, ep = joinCheckWorld(t, holder(func(*awsv1alpha1.DynamoDBTable) {}))
	if _, err := p.checkJoin(ctx, ep, obj); !isRetryReason(err, ReasonGlobalTableSourceNotAllowed) {
		t.Errorf("the joiner's namespace not found: %v, want %s", err, ReasonGlobalTableSourceNotAllowed)
	}

	unresolved := holder(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.AccountRef.Name = "deleted-account" })
	p, ep = joinCheckWorld(t, namespace("join", nil, nil), unresolved)
	_, err := p.checkJoin(ctx, ep, obj)
	if !isRetryReason(err, ReasonGlobalTableSourceNotAllowed) {
		t.Errorf("a table of that name that does not resolve: %v, want %s", err, ReasonGlobalTableSourceNotAllowed)
	} else if msg := err.Error(); strings.Contains(msg, unresolved.Name) || strings.Contains(msg, "deleted-account") {
		t.Errorf("the refusal tells of another namespace's object: %s", msg)
	}

	operators := holder(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.AccountRef = nil })
	p, ep = joinCheckWorld(t, namespace("join", nil, nil), operators)
	pending, ok := providers.AsPending(func() error { _, err := p.checkJoin(ctx, ep, obj); return err }())
	if !ok || pending.Reason != reasonJoinWaiting {
		t.Errorf("a holder whose account id is not known yet: %v, want a wait (%s)", pending, reasonJoinWaiting)
	}
}

// leaveAPI answers UpdateTable with err, counting the calls; nothing else
// is called by leaveKeeping.
type leaveAPI struct {
	access.API
	calls int
	err   error
}

func (a *leaveAPI) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	a.calls++
	return &dynamodb.UpdateTableOutput{}, a.err
}

// A joined table that leaves its global table (onDelete: Disassociate)
// sends Disassociate once per generation: AWS's refusal is kept and not
// sent again however often the object wakes, until its generation
// changes; an accepted Disassociate after which the table, settled, is
// ACTIVE and still a member is a failure naming the replicas' statuses
// (GlobalTableLeaveFailed), not a resend. Before, each look sent it again.
func TestLeaveKeepingSendsDisassociateOncePerGeneration(t *testing.T) {
	ctx := context.Background()
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = "orders"
		o.Spec.DisassociationProtectionEnabled = aws.Bool(false)
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{OnDelete: awsv1alpha1.GlobalTableOnDeleteDisassociate,
			TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"}
	})
	member := &types.TableDescription{TableName: aws.String("orders"), TableStatus: types.TableStatusActive,
		GlobalTableVersion: aws.String("2019.11.21"), DisassociationProtectionEnabled: aws.Bool(false),
		Replicas: []types.ReplicaDescription{{RegionName: aws.String("us-east-1"), ReplicaStatus: types.ReplicaStatusActive}}}

	api := &leaveAPI{err: &smithy.GenericAPIError{Code: "ValidationException", Message: "refused"}}
	p := New(Options{SettleWindow: time.Nanosecond})
	ep := &access.Endpoint{API: api, Region: "eu-west-1", Account: "222222222222", AccountID: "222222222222"}
	for look := range 3 {
		if _, err := p.leaveKeeping(ctx, ep, obj, member); !isRetryReason(err, plan.ReasonDisassociationRefused) {
			t.Fatalf("look %d: %v, want %s", look, err, plan.ReasonDisassociationRefused)
		}
	}
	if api.calls != 1 {
		t.Errorf("a refused Disassociate was sent %d times for one generation, want 1", api.calls)
	}
	obj.Generation++
	api.err = nil
	if _, err := p.leaveKeeping(ctx, ep, obj, member); err == nil || api.calls != 2 {
		t.Errorf("a new generation: %v, %d calls; want it sent again, and a wait", err, api.calls)
	}
	time.Sleep(time.Millisecond) // the settle window passes
	for look := range 3 {
		_, err := p.leaveKeeping(ctx, ep, obj, member)
		if !isRetryReason(err, reasonLeaveFailed) || !strings.Contains(err.Error(), "us-east-1 ACTIVE") {
			t.Fatalf("look %d after an accepted Disassociate, still a member: %v, want %s naming the replicas", look, err, reasonLeaveFailed)
		}
	}
	if api.calls != 2 {
		t.Errorf("an accepted Disassociate was sent again (%d calls)", api.calls)
	}
}

// A refused join into another namespace tells nothing of it: a tableRef
// to an object that does not exist, to one whose account this table's
// AWSAccount does not admit, and to one whose AWSAccount does not admit
// this namespace are refused in the same words, which name only what the
// tenant wrote (never the ARN it resolves to, the account, the holder's
// AWSAccount, or whether it exists); nor does an ARN's refusal name the
// other namespace's object that holds it.
func TestJoinRefusalsTellNothingOfAnotherNamespace(t *testing.T) {
	ctx := context.Background()
	holder := newTable(inNamespace("src"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Name = "orders"
		o.Spec.TableName, o.Spec.Region = "orders", "us-east-1"
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "src-account"}
	})
	joiner := func(ns string, src awsv1alpha1.GlobalTableSource) *awsv1alpha1.DynamoDBTable {
		return newTable(inNamespace(ns), func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.TableName, o.Spec.Region = "orders", "eu-west-1"
			o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "join-account"}
			o.Spec.GlobalTableSource = &src
		})
	}
	refused := func(p *Provider, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) string {
		t.Helper()
		_, err := p.checkJoin(ctx, ep, obj)
		if !isRetryReason(err, ReasonGlobalTableSourceNotAllowed) {
			t.Fatalf("%v, want %s", err, ReasonGlobalTableSourceNotAllowed)
		}
		msg := err.Error()
		for _, secret := range []string{"arn:aws:dynamodb:", "111111111111", "src-account", "does not resolve", "it does not exist;"} {
			if strings.Contains(msg, secret) {
				t.Errorf("the refusal tells %q: %s", secret, msg)
			}
		}
		return msg
	}
	byRef := func(name string) awsv1alpha1.GlobalTableSource {
		return awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: "src", Name: name}}
	}

	p, ep := joinCheckWorld(t, namespace("join", nil, nil), namespace("other", nil, nil), holder)
	missing := refused(p, ep, joiner("join", byRef("nothing-here")))
	ep.AWSAccount = ep.AWSAccount.DeepCopy()
	ep.AWSAccount.Spec.Tenancy.GlobalTables.SourceAccounts = nil
	notThisAccount := refused(p, ep, joiner("join", byRef("orders")))
	if strings.ReplaceAll(missing, "nothing-here", "orders") != notThisAccount {
		t.Errorf("a missing object and one of an account not admitted are told apart:\n%s\n%s", missing, notThisAccount)
	}

	// The source's side refuses namespace "other" (its replicaNamespaces
	// name "join" only).
	p, ep = joinCheckWorld(t, namespace("join", nil, nil), namespace("other", nil, nil), holder)
	ep.AWSAccount = ep.AWSAccount.DeepCopy()
	ep.AWSAccount.Spec.Tenancy.GlobalTables.JoinNamespaces.Names = []string{"join", "other"}
	sourceSide := refused(p, ep, joiner("other", byRef("orders")))
	if !strings.Contains(sourceSide, "DynamoDBTable src/orders (tableRef)") {
		t.Errorf("the refusal does not name what the tenant wrote: %s", sourceSide)
	}
	hostile := joiner("other", awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111111111111:table/orders"})
	_, err := p.checkJoin(ctx, ep, hostile)
	if !isRetryReason(err, ReasonGlobalTableSourceNotAllowed) || strings.Contains(err.Error(), "src/orders") || strings.Contains(err.Error(), "src-account") {
		t.Errorf("an ARN another namespace's object holds: %v, want %s naming neither the object nor its AWSAccount", err, ReasonGlobalTableSourceNotAllowed)
	}
}

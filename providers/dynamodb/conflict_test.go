package dynamodb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

func TestConflictGoesToTheObjectThatHasTheTableThenTheOlder(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	at := func(sec int) metav1.Time { return metav1.NewTime(time.Unix(int64(1_800_000_000+sec), 0)) }
	named := func(ns string, created metav1.Time, tableID string) *awsv1alpha1.DynamoDBTable {
		return newTable(func(o *awsv1alpha1.DynamoDBTable) {
			o.Namespace, o.Name, o.CreationTimestamp = ns, "orders", created
			o.Spec.TableName = "orders"
			o.Status.TableID = tableID
		})
	}
	older, newer := named("a", at(0), ""), named("b", at(10), "")
	holder := named("c", at(20), "id-1")
	otherRegion := named("d", at(-10), "")
	otherRegion.Spec.Region = "eu-west-1"
	// An account that cannot be resolved (issue 23 item 8): the object may
	// hold this very table, so it is never taken for "no earlier holder".
	unresolved := named("e", at(30), "id-2")
	unresolved.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "deleted-account"}
	// One that holds no table can make none while unresolved: no blocker
	// (else anyone could squat table names from a namespace no account
	// admits).
	squatter := named("f", at(-20), "")
	squatter.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "deleted-account"}

	cases := []struct {
		name     string
		objects  []*awsv1alpha1.DynamoDBTable
		subject  *awsv1alpha1.DynamoDBTable
		conflict bool
		reason   string // providers.ReasonConflict when empty
	}{
		{"the older one proceeds", []*awsv1alpha1.DynamoDBTable{older, newer}, older, false, ""},
		{"the newer one waits", []*awsv1alpha1.DynamoDBTable{older, newer}, newer, true, ""},
		{"the one that has the table wins over older ones", []*awsv1alpha1.DynamoDBTable{older, holder}, older, true, ""},
		{"another region is another table", []*awsv1alpha1.DynamoDBTable{otherRegion, newer}, newer, false, ""},
		{"a holder whose account cannot be resolved still holds", []*awsv1alpha1.DynamoDBTable{unresolved, older}, older, true, reasonHolderUnresolved},
		{"an older object that cannot be resolved and holds nothing", []*awsv1alpha1.DynamoDBTable{squatter, older}, older, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := fake.NewClientBuilder().WithScheme(scheme).WithIndex(&awsv1alpha1.DynamoDBTable{}, IndexTableName, TableNameOf)
			for _, o := range c.objects {
				b = b.WithObjects(o.DeepCopy())
			}
			p := New(Options{Reader: b.Build(), Clients: access.ClientOptions{DefaultRegion: "us-east-1"}})
			ep := endpointOf(t, p, c.subject)
			err := p.checkConflict(context.Background(), ep, c.subject)
			var got string
			var conflict *conflictError
			if errors.As(err, &conflict) {
				got = conflict.Reason
			} else if ra, ok := providers.AsRetryAfter(err); ok {
				got = ra.Reason
			}
			reason := c.reason
			if reason == "" {
				reason = providers.ReasonConflict
			}
			if isConflict := got != ""; isConflict != c.conflict || (isConflict && got != reason) {
				t.Errorf("err = %v, want conflict %v (%s)", err, c.conflict, reason)
			}
		})
	}
}

// The region is resolved before anything is keyed by it (issue 17 item 3):
// with no --aws-region, an object without a region and one naming the
// default chain's region (AWS_REGION) name the same table, and share one
// client and limiter. The order is the spec's region, then --aws-region,
// then the default chain's.
func TestRegionIsResolvedBeforeKeying(t *testing.T) {
	t.Setenv("AWS_REGION", "us-east-1")
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	implicit := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Namespace, o.Spec.TableName, o.CreationTimestamp = "a", "orders", metav1.NewTime(time.Unix(1_800_000_000, 0))
	})
	explicit := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Namespace, o.Spec.TableName, o.CreationTimestamp = "b", "orders", metav1.NewTime(time.Unix(1_800_000_100, 0))
		o.Spec.Region = "us-east-1"
	})
	reader := fake.NewClientBuilder().WithScheme(scheme).WithIndex(&awsv1alpha1.DynamoDBTable{}, IndexTableName, TableNameOf).
		WithObjects(implicit.DeepCopy(), explicit.DeepCopy()).Build()
	p := New(Options{Reader: reader})
	ep := endpointOf(t, p, explicit)
	var c *conflictError
	if !errors.As(p.checkConflict(ctx, ep, explicit), &c) || c.Reason != providers.ReasonConflict {
		t.Errorf("region us-east-1 and no region (resolved to us-east-1) were not seen as one table")
	}
	if implicitEP := endpointOf(t, p, implicit); implicitEP != ep {
		t.Error("no region and us-east-1 got two clients, so two limiters")
	}

	// --aws-region comes before the default chain; the spec before both.
	p = New(Options{Reader: reader, Clients: access.ClientOptions{DefaultRegion: "eu-west-1"}})
	for spec, want := range map[string]string{"": "eu-west-1", "us-east-1": "us-east-1", "ap-south-1": "ap-south-1"} {
		if got, err := p.clients.Region(ctx, spec, ""); err != nil || got != want {
			t.Errorf("Region(%q) = %q, %v; want %q", spec, got, err, want)
		}
	}
	ep = endpointOf(t, p, explicit)
	if err := p.checkConflict(ctx, ep, explicit); err != nil {
		t.Errorf("with --aws-region eu-west-1 the object without a region is in eu-west-1, not us-east-1: %v", err)
	}
}

// endpointOf resolves obj's target and client as Observe does.
func endpointOf(t *testing.T, p *Provider, obj *awsv1alpha1.DynamoDBTable) *access.Endpoint {
	t.Helper()
	// No DynamoDB call is made; the operator's own identity needs STS to
	// say its account first (ddbtest's environment has a model of it).
	ddbtest.UseEndpoint(t, "http://127.0.0.1:1")
	ep, err := p.endpointFor(context.Background(), obj)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// An object being deleted while another one, whose account cannot be
// resolved, holds a table of that name neither deletes the table nor lets
// go of it: it waits, saying why (issue 23 item 8: a failing resolve never
// counts as "no earlier holder", in either direction).
func TestDeleteWaitsWhileAnUnresolvedHolderMayHoldTheTable(t *testing.T) {
	holder := newTable(inNamespace("team-x"), usingAccount("deleted-account"), func(o *awsv1alpha1.DynamoDBTable) {
		o.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour))
		o.Status.TableID = "its-table"
	})
	f := newAccountsFixture(t, dynamoDBLocal(t).URL, Options{}, ststest.Options{}, namespace("default", nil, nil), namespace("team-x", nil, nil))
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Name, o.CreationTimestamp = holder.Name, metav1.Now() })
	f.converge(obj)
	if err := f.reader.Create(context.Background(), holder); err != nil {
		t.Fatal(err)
	}
	if err := f.delete(obj); !isRetryReason(err, reasonHolderUnresolved) || !strings.Contains(err.Error(), "team-x/") {
		t.Fatalf("delete: %v, want %s naming the holder", err, reasonHolderUnresolved)
	}
	if !f.exists(obj.Name) {
		t.Error("the table was deleted while another object may hold it")
	}
}

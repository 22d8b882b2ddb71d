package crashtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
)

const (
	timeout = 90 * time.Second
	poll    = 200 * time.Millisecond
	// leaseDuration is controller-runtime's default, which ./cmd/manager keeps.
	leaseDuration = 15 * time.Second
	retryPeriod   = 2 * time.Second
	// takeoverBound is the longest a follower may take to lead once the
	// leader dies: client-go's elector tries every retryPeriod jittered by
	// up to 1.2 times more (leaderelection.go, JitterFactor), so it may
	// see the leader's last renewal up to one such wait late, and take the
	// lease up to another after it expired; plus a second to notice.
	takeoverBound = leaseDuration + 2*(retryPeriod+retryPeriod*12/10) + time.Second
)

var seq int

func newTable(t *testing.T, ns, name string) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	seq++
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			TableName:            fmt.Sprintf("%s-%d-%d", name, seq, time.Now().UnixNano()%1000000),
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		},
	}
}

func readyAtGeneration(g Gomega, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	out := &awsv1alpha1.DynamoDBTable{}
	g.Expect(env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), out)).To(Succeed())
	ready := meta.FindStatusCondition(out.Status.Conditions, "Ready")
	g.Expect(ready).NotTo(BeNil())
	g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "Ready %s: %s", ready.Reason, ready.Message)
	g.Expect(ready.ObservedGeneration).To(Equal(out.Generation))
	return out
}

// raw talks to DynamoDB Local directly, behind the operator's back.
func raw(t *testing.T) *awsdynamodb.Client { return rawAs(t, ddbtest.AccessKeyID) }

// rawAs is raw with the access key id key: DynamoDB Local keeps a database
// per key, one account's tables.
func rawAs(t *testing.T, key string) *awsdynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "tethertest"}, nil
		})))
	if err != nil {
		t.Fatal(err)
	}
	return awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) })
}

// tablesNamed counts the tables DynamoDB Local has under name.
func tablesNamed(t *testing.T, name string) int { return tablesNamedAs(t, ddbtest.AccessKeyID, name) }

// tablesNamedAs counts them in the database of the access key id key.
func tablesNamedAs(t *testing.T, key, name string) int {
	t.Helper()
	n := 0
	p := awsdynamodb.NewListTablesPaginator(rawAs(t, key), &awsdynamodb.ListTablesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range page.TableNames {
			if tn == name {
				n++
			}
		}
	}
	return n
}

func deleteAndWait(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	ctx := context.Background()
	_ = env.Client.Delete(ctx, obj)
	NewWithT(t).Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &awsv1alpha1.DynamoDBTable{}))
	}, timeout, poll).Should(BeTrue(), "%s left behind", obj.Name)
}

// TestCrashAfterCreateTable: the manager is SIGKILLed after DynamoDB made
// the table but before the manager heard back (so before any status write).
// A new manager does not create the table again, and does not guess that it
// is its own either: ownership rests on proof (the owner tag CreateTable
// carries, or the table id from CreateTable's answer), and DynamoDB Local
// has no tags and the answer was lost. So the object says NotOwned, naming
// the create that was interrupted; the adopt annotation makes it Ready, and
// with tether.dev/delete-adopted too (the table is the object's own after
// all) deleting the object then removes the table. (On AWS, CreateTable applies
// the owner tags, which prove ownership after the restart:
// providers/dynamodb TestOwnerTagsAndTagDrift.)
func TestCrashAfterCreateTable(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	proxy := newCountingProxy(t, true)
	first := startManager(t, "first", proxy.URL)

	table := newTable(t, "crash", "orders")
	g.Expect(env.Client.Create(ctx, table)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, table) })

	select {
	case <-proxy.held:
	case <-time.After(timeout):
		t.Fatalf("CreateTable never reached DynamoDB; manager log:\n%s", first.logTail(4000))
	}
	g.Expect(tablesNamed(t, table.Spec.TableName)).To(Equal(1), "DynamoDB made the table")
	first.kill() // SIGKILL while CreateTable's answer is in flight
	proxy.stopHolding()

	var crashed awsv1alpha1.DynamoDBTable
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(table), &crashed)).To(Succeed())
	g.Expect(crashed.Finalizers).NotTo(BeEmpty(), "the finalizer went on before the create")
	g.Expect(crashed.Status.TableID).To(BeEmpty(), "no status was written after the create: the crash came first")
	g.Expect(meta.IsStatusConditionTrue(crashed.Status.Conditions, "Ready")).To(BeFalse())

	second := startManager(t, "second", proxy.URL)
	var synced string
	g.Eventually(func(g Gomega) string {
		var o awsv1alpha1.DynamoDBTable
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(table), &o)).To(Succeed())
		c := meta.FindStatusCondition(o.Status.Conditions, "Synced")
		g.Expect(c).NotTo(BeNil())
		synced = string(c.Status) + "/" + c.Reason + ": " + c.Message
		return synced
	}, timeout, poll).Should(HavePrefix("False/NotOwned: "),
		"after the restart the unproven table is not taken; second manager log:\n%s", second.logTail(3000))
	g.Expect(synced).To(ContainSubstring("no proof it is the one it asked DynamoDB to create"), "the message names the interrupted create")
	g.Expect(synced).To(ContainSubstring(awsv1alpha1.AnnotationAdopt))
	g.Expect(proxy.count("CreateTable")).To(Equal(1), "the table is created exactly once")
	g.Expect(proxy.count("DeleteTable")).To(BeZero())

	g.Eventually(func() error {
		var cur awsv1alpha1.DynamoDBTable
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(table), &cur); err != nil {
			return err
		}
		cur.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true", awsv1alpha1.AnnotationDeleteAdopted: "true"}
		return env.Client.Update(ctx, &cur)
	}, timeout, poll).Should(Succeed())
	var ready *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) { ready = readyAtGeneration(g, table) }, timeout, poll).Should(Succeed())
	g.Expect(ready.Status.TableID).NotTo(BeEmpty())
	g.Expect(proxy.count("CreateTable")).To(Equal(1))
	g.Expect(tablesNamed(t, table.Spec.TableName)).To(Equal(1))

	deleteAndWait(t, table)
	g.Expect(tablesNamed(t, table.Spec.TableName)).To(BeZero(), "deleting the adopted object removed the table")
}

// TestLeaderTakeover: two managers with leader election; the leader is
// SIGKILLed; the other takes over within the lease and carries on (a spec
// change and a new table). Every write DynamoDB receives comes from the
// leader of the moment: the old one's all before the kill, the new one's
// all after, so no table is ever written by both.
func TestLeaderTakeover(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	leaderProxy, followerProxy := newCountingProxy(t, false), newCountingProxy(t, false)
	electionArgs := []string{"--leader-elect", "--leader-election-namespace=default"}

	leader := startManager(t, "leader", leaderProxy.URL, electionArgs...)
	g.Eventually(leader.isLeader, timeout, poll).Should(BeTrue(), "the first manager leads")
	follower := startManager(t, "follower", followerProxy.URL, electionArgs...)

	first := newTable(t, "election", "first")
	g.Expect(env.Client.Create(ctx, first)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, first) })
	g.Eventually(func(g Gomega) { readyAtGeneration(g, first) }, timeout, poll).Should(Succeed())
	g.Expect(follower.isLeader()).To(BeFalse())
	g.Expect(followerProxy.Writes()).To(BeEmpty(), "the follower writes nothing while the leader lives")

	killedAt := time.Now()
	leader.kill()

	// Work for whoever leads next: a spec change and a new table.
	g.Eventually(func() error {
		var cur awsv1alpha1.DynamoDBTable
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), &cur); err != nil {
			return err
		}
		cur.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
		return env.Client.Update(ctx, &cur)
	}, timeout, poll).Should(Succeed())
	second := newTable(t, "election", "second")
	g.Expect(env.Client.Create(ctx, second)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, second) })

	g.Eventually(follower.isLeader, takeoverBound+5*time.Second, poll).Should(BeTrue(), "the follower takes over")
	takeover := time.Since(killedAt)
	t.Logf("takeover after %s (lease %s)", takeover.Round(100*time.Millisecond), leaseDuration)
	g.Expect(takeover).To(BeNumerically("<=", takeoverBound), "the follower waited more than one lease")

	g.Eventually(func(g Gomega) { readyAtGeneration(g, first) }, timeout, poll).Should(Succeed())
	g.Eventually(func(g Gomega) { readyAtGeneration(g, second) }, timeout, poll).Should(Succeed())

	for _, w := range leaderProxy.Writes() {
		g.Expect(w.At).To(BeTemporally("<", killedAt), "the old leader wrote %s after it was killed", w.Op)
	}
	after := followerProxy.Writes()
	g.Expect(after).NotTo(BeEmpty())
	for _, w := range after {
		g.Expect(w.At).To(BeTemporally(">", killedAt), "the follower wrote %s while the leader lived", w.Op)
	}
	t.Logf("writes: old leader %d, new leader %d", len(leaderProxy.Writes()), len(after))

	deleteAndWait(t, first)
	deleteAndWait(t, second)
	g.Expect(tablesNamed(t, first.Spec.TableName) + tablesNamed(t, second.Spec.TableName)).To(BeZero())
}

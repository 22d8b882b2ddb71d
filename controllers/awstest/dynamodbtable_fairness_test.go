package awstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// One team's burst of tables must not stall another team's: each account's
// limiter paces only its own tables. Account A gets a backlog of new tables
// that takes its limiter minutes; then account B, whose limiter is idle,
// gets one table, which must be Ready within 30 s, while most of A's are
// not. Two shapes of backlog: a very slow limiter (each pass would wait
// seconds), and the default rate with many tables (each pass would wait
// under a second, but ten workers' passes fit in a second of A's limiter,
// and A's passes queued ahead of B's take it most of a minute).
//
// When passes waited for their limiter inside the SDK (before the turns of
// providers/dynamodb/access/turns.go), A's passes held all ten workers and B's
// table, queued behind A's, waited for one: both cases failed with B not
// Ready after 30 s. With turns that let a pass wait up to a second, the
// second case still failed.
func TestDynamoDBAccountBacklogDoesNotHoldAnotherAccountBack(t *testing.T) {
	for _, tc := range []struct {
		name      string
		perSecond float64
		burst     int
		busy      int
	}{
		{name: "slow limiter", perSecond: 0.2, burst: 5, busy: 30},
		{name: "many tables", perSecond: 25, burst: 1, busy: 500},
	} {
		t.Run(tc.name, func(t *testing.T) { backlogDoesNotHoldAnotherAccountBack(t, tc.perSecond, tc.burst, tc.busy) })
	}
}

func backlogDoesNotHoldAnotherAccountBack(t *testing.T, perSecond float64, burst, busy int) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	mgr, err := ctrltest.NewManager(ctrltest.TablesOfManager(true))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = controllers.SetupDynamoDBTable(mgr, ctrltest.DDBPollInterval, dynamodb.Options{
		Clients:               access.ClientOptions{RequestsPerSecond: perSecond, Burst: burst},
		SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond})
	g.Expect(err).NotTo(HaveOccurred())
	go func() { _ = mgr.Start(ctx) }()

	nsA, nsB := ctrltest.TableName("busy-team"), ctrltest.TableName("quiet-team")
	acctA, acctB := ctrltest.TableName("busy-account"), ctrltest.TableName("quiet-account")
	s.createNamespace(t, nsA, nil, map[string]string{awsv1alpha1.AnnotationNamespaceAccount: acctA})
	s.createNamespace(t, nsB, nil, map[string]string{awsv1alpha1.AnnotationNamespaceAccount: acctB})
	s.CreateAccount(t, acctA, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) { a.Spec.NamespaceSelector.Names = []string{nsA} })
	s.CreateAccount(t, acctB, ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.NamespaceSelector.Names = []string{nsB}
	})
	own := func(o *awsv1alpha1.DynamoDBTable) { o.Labels = map[string]string{ctrltest.LabelOwnManager: "fairness"} }

	// A's tables are left behind when the test ends: deleting them takes
	// A's limiter minutes, and the suite's controller never sees them.
	for i := range busy {
		a := ctrltest.NewTable(nsA, fmt.Sprintf("t%03d", i), own, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = ctrltest.TableName("busy") })
		g.Expect(s.Client.Create(ctx, a)).To(Succeed())
	}
	b := ctrltest.NewTable(nsB, "orders", own, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = ctrltest.TableName("quiet") })
	g.Expect(s.Client.Create(ctx, b)).To(Succeed())
	t.Cleanup(func() { _ = client.IgnoreNotFound(s.Client.Delete(context.Background(), b.DeepCopy())) })

	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, b), "Ready") }, 30*time.Second, ctrltest.DDBPoll).
		Should(Equal("True/Available"), "account B's table waits behind account A's backlog")
	g.Expect(s.tablesAs(t, ctrltest.KeyB, "us-east-1")).To(ContainElement(b.Spec.TableName))

	// A's backlog was real: its tables are still waiting for their
	// limiter, and say nothing failed while they wait. (How many are done
	// by now depends on how long the 500 creates took the machine, so the
	// check is only that some still wait.)
	var list awsv1alpha1.DynamoDBTableList
	g.Expect(s.Client.List(ctx, &list, client.InNamespace(nsA))).To(Succeed())
	g.Expect(list.Items).To(HaveLen(busy))
	ready := 0
	for _, o := range list.Items {
		if ctrltest.Condition(&o, "Ready") == "True/Available" {
			ready++
		}
		if c := meta.FindStatusCondition(o.Status.Conditions, "Synced"); c != nil {
			g.Expect(string(c.Status)).To(Equal("True"), "%s: waiting for its turn is no failure: %s %s", o.Name, c.Reason, c.Message)
		}
	}
	g.Expect(ready).To(BeNumerically("<", busy), "account A's limiter should still be working through its backlog")
}

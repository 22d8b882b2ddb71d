package crashtest

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ststest"
)

// TestRestartWithAnotherAccountsCredentials (issue 39 item 6): the manager
// made a table with the operator's own identity, and is restarted with the
// credentials of another AWS account (a changed Secret, IRSA role or
// profile; neither the chart nor kustomize sets --aws-account-id). STS (a
// model, internal/ststest) names each key's account, and DynamoDB Local
// keeps a database per key: the other account has no such table. The new
// process asks STS who it is before any write and, the object's status
// recording the first account, says AccountChanged: no table is made,
// empty, in the other account; deleting the object deletes nothing in
// either. Before, the restarted manager re-created the table there.
func TestRestartWithAnotherAccountsCredentials(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	const movedKey, movedAccount = "movedkey", "999999999999"
	sts, err := ststest.Start(ststest.Options{Accounts: map[string]string{movedKey: movedAccount}})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sts.Close)
	proxy := newCountingProxy(t, false)
	first := startManager(t, "first", proxy.URL)

	table := newTable(t, "moved", "ledger")
	table.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
	g.Expect(env.Client.Create(ctx, table)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, table) })
	var ready *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) { ready = readyAtGeneration(g, table) }, timeout, poll).Should(Succeed())
	g.Expect(ready.Status.AccountID).To(Equal(ststest.DefaultAccount), "the account STS named for the first credentials")
	first.kill()

	moved := startManagerWith(t, "moved", proxy.URL, map[string]string{"AWS_ACCESS_KEY_ID": movedKey, "AWS_ENDPOINT_URL_STS": sts.URL})
	synced := func(g Gomega) *metav1.Condition {
		var o awsv1alpha1.DynamoDBTable
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(table), &o)).To(Succeed())
		c := meta.FindStatusCondition(o.Status.Conditions, "Synced")
		g.Expect(c).NotTo(BeNil())
		return c
	}
	g.Eventually(func(g Gomega) string { return synced(g).Reason }, timeout, poll).Should(Equal("AccountChanged"),
		"moved manager log:\n%s", moved.logTail(3000))
	g.Expect(synced(g).Message).To(And(ContainSubstring(ststest.DefaultAccount), ContainSubstring(movedAccount)))
	g.Expect(sts.CallerIdentityCalls()).To(ContainElement(movedKey), "the moved manager never asked STS who it is")

	g.Expect(env.Client.Delete(ctx, table.DeepCopy())).To(Succeed())
	g.Consistently(func(g Gomega) string { return synced(g).Reason }, "3s", poll).Should(Equal("AccountChanged"))
	g.Expect(tablesNamedAs(t, movedKey, table.Spec.TableName)).To(BeZero(), "the table was made again, empty, in the other account")
	g.Expect(tablesNamed(t, table.Spec.TableName)).To(Equal(1), "the table was deleted in the first account")
	g.Expect(proxy.count("CreateTable")).To(Equal(1), "one CreateTable: the first manager's")
	g.Expect(proxy.count("DeleteTable")).To(BeZero())

	// Let go of the object the way the condition says, and clean up.
	g.Eventually(func() error {
		var cur awsv1alpha1.DynamoDBTable
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(table), &cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		cur.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
		return env.Client.Update(ctx, &cur)
	}, timeout, poll).Should(Succeed())
	deleteAndWait(t, table)
	g.Expect(tablesNamed(t, table.Spec.TableName)).To(Equal(1), "letting go deleted the table")
}

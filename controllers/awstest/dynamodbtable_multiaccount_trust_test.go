package awstest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// maWorld is a source account (role A) and a joining one (role B) on the
// model, each AWSAccount admitting the other for the namespaces nsSrc and
// nsJoin.
type maWorld struct {
	gap                   *ddbgap.Server
	nsSrc, nsJoin         string
	srcAcct, joinAcct     *awsv1alpha1.AWSAccount
	rawA, rawB            *awsdynamodb.Client
	srcRegion, joinRegion string
}

func (s *ddbSuite) maWorld(t *testing.T, prefix string) *maWorld {
	t.Helper()
	g := NewWithT(t)
	w := &maWorld{srcRegion: "us-east-1", joinRegion: "eu-west-1"}
	w.gap = ddbgap.New(s.Local, ddbgap.Options{Accounts: map[string]string{ctrltest.KeyA: suiteAccountA, ctrltest.KeyB: suiteAccountB}})
	url, err := w.gap.Listen()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = w.gap.Close() })
	w.nsSrc, w.nsJoin = ctrltest.TableName(prefix+"-src"), ctrltest.TableName(prefix+"-join")
	s.createNamespace(t, w.nsSrc, nil, nil)
	s.createNamespace(t, w.nsJoin, nil, nil)
	w.srcAcct = s.CreateAccount(t, ctrltest.TableName(prefix+"-src-account"), ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.Endpoint, a.Spec.Region = url, w.srcRegion
		a.Spec.NamespaceSelector.Names = []string{w.nsSrc}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{ReplicaAccounts: []string{suiteAccountB},
			ReplicaNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{w.nsJoin}}}
	})
	w.joinAcct = s.CreateAccount(t, ctrltest.TableName(prefix+"-join-account"), ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.Endpoint, a.Spec.Region = url, w.joinRegion
		a.Spec.NamespaceSelector.Names = []string{w.nsJoin}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{SourceAccounts: []string{suiteAccountA},
			JoinNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{w.nsJoin}}}
	})
	w.rawA, w.rawB = rawAs(t, url, ctrltest.KeyA, w.srcRegion), rawAs(t, url, ctrltest.KeyB, w.joinRegion)
	return w
}

func (w *maWorld) arn(account, region, table string) string {
	return "arn:aws:dynamodb:" + region + ":" + account + ":table/" + table
}

// MODEL: status.globalTableSourceArn steers nothing. A table joined its
// source by tableRef; the source's object is deleted (its table retained),
// so the tableRef resolves no more. A tenant then writes another table's
// ARN into the joiner's status.globalTableSourceArn and has Tether look
// again: the joiner's policy, which Tether writes, still names the source
// the join was sent with and never the ARN the status names, and no
// PutResourcePolicy is sent. Before, the status's ARN replaced the source
// in the replication statement while the holder did not resolve.
func TestDynamoDBTableMultiAccountStatusSourceArnSteersNoPolicy(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.maWorld(t, "ma-status")
	tableName := ctrltest.TableName("ma-status")
	srcArn, joinArn := w.arn(suiteAccountA, w.srcRegion, tableName), w.arn(suiteAccountB, w.joinRegion, tableName)
	source := ctrltest.NewTable(w.nsSrc, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.srcAcct.Name}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyRetain
	})
	s.Create(t, source)
	s.EventuallyReady(t, source)
	joiner := ctrltest.NewTable(w.nsJoin, "orders-replica", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: w.nsSrc, Name: source.Name}}
	})
	s.Create(t, joiner)
	s.EventuallyReady(t, joiner)
	g.Eventually(func(g Gomega) any {
		return statementsOf(g, policyOf(g, w.rawB, joinArn))["TetherGlobalTableReplication"]["Condition"]
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(HaveKeyWithValue("ArnLike", map[string]any{"aws:SourceArn": []any{joinArn, srcArn}}))

	// The holder goes (its table stays): the tableRef resolves no more.
	g.Expect(s.Client.Delete(ctx, source.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, source)

	forged := w.arn("333333333333", w.srcRegion, ctrltest.TableName("ma-victim"))
	puts := w.gap.Calls("PutResourcePolicy")
	s.patchStatus(t, joiner, map[string]any{"globalTableSourceArn": forged})
	s.nudge(t, joiner)
	g.Consistently(func(g Gomega) string {
		return policyOf(g, w.rawB, joinArn)
	}, "4s", ctrltest.DDBPoll).ShouldNot(ContainSubstring("333333333333"), "the policy Tether writes never names the status's ARN")
	g.Expect(w.gap.Calls("PutResourcePolicy")).To(Equal(puts), "no policy written for the status's ARN")
	g.Expect(statementsOf(g, policyOf(g, w.rawB, joinArn))["TetherGlobalTableReplication"]["Condition"]).To(
		HaveKeyWithValue("ArnLike", map[string]any{"aws:SourceArn": []any{joinArn, srcArn}}), "still the source the join was sent with")

	g.Expect(s.Client.Delete(ctx, joiner.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, joiner)
}

// MODEL: Tether never replaces a policy it did not put there. A source
// whose spec declares no resource policy carries someone else's (put
// behind Tether's back); a joiner both AWSAccounts admit appears. The
// source's policy is left exactly as it was (no PutResourcePolicy), and
// the source's condition, GlobalTablePolicyNotOwned, prints the statements
// its owner must add. Before, the whole policy was replaced by one holding
// only Tether's statements, and deleted with the last joiner.
func TestDynamoDBTableMultiAccountSourcePolicyNotOverwritten(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.maWorld(t, "ma-theirs")
	tableName := ctrltest.TableName("ma-theirs")
	srcArn := w.arn(suiteAccountA, w.srcRegion, tableName)
	source := ctrltest.NewTable(w.nsSrc, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.srcAcct.Name}
	})
	s.Create(t, source)
	s.EventuallyReady(t, source)
	theirs := `{"Version":"2012-10-17","Statement":[{"Sid":"TheirOwn","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + suiteAccountA +
		`:root"},"Action":"dynamodb:GetItem","Resource":"` + srcArn + `"}]}`
	put, err := w.rawA.PutResourcePolicy(ctx, &awsdynamodb.PutResourcePolicyInput{ResourceArn: aws.String(srcArn), Policy: aws.String(theirs)})
	g.Expect(err).NotTo(HaveOccurred())
	revision := func(g Gomega) string {
		out, err := w.rawA.GetResourcePolicy(ctx, &awsdynamodb.GetResourcePolicyInput{ResourceArn: aws.String(srcArn)})
		g.Expect(err).NotTo(HaveOccurred())
		return aws.ToString(out.RevisionId)
	}

	joiner := ctrltest.NewTable(w.nsJoin, "orders-replica", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: w.nsSrc, Name: source.Name}}
	})
	s.Create(t, joiner)
	told := s.eventuallySynced(t, source, "False/"+dynamodb.ReasonGlobalTablePolicyNotOwned)
	msg := meta.FindStatusCondition(told.Status.Conditions, "Synced").Message
	g.Expect(msg).To(ContainSubstring("TetherGlobalTableReplication"))
	g.Expect(msg).To(ContainSubstring("replication.dynamodb.amazonaws.com"))
	g.Expect(msg).To(ContainSubstring("dynamodb:AssociateTableReplica"))
	g.Expect(msg).To(ContainSubstring("arn:aws:iam::" + suiteAccountB + ":root"))
	s.nudge(t, source)
	g.Consistently(func(g Gomega) string { return policyOf(g, w.rawA, srcArn) }, "3s", ctrltest.DDBPoll).Should(MatchJSON(theirs), "their policy, unchanged")
	// (Tether's cached read may still say "no policy" when the joiner
	// appears: a PutResourcePolicy it then sends carries ExpectedRevisionId
	// NO_POLICY and is refused. The revision shows that nothing was written.)
	g.Expect(revision(g)).To(Equal(aws.ToString(put.RevisionId)), "nothing written to the source's policy")

	g.Expect(s.Client.Delete(ctx, joiner.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, joiner)
	g.Expect(policyOf(g, w.rawA, srcArn)).To(MatchJSON(theirs), "nor deleted once no table joins it")
	g.Expect(s.Client.Delete(ctx, source.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, source)
}

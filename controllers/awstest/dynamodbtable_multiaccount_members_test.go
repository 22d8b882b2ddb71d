package awstest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// A third account, for global tables of three members: a role the suite's
// STS model learns when a test first needs it (suiteRoleC).
const (
	suiteAccountC = "333333333333"
	suiteRoleC    = "arn:aws:iam::333333333333:role/tether"
	suiteKeyC     = "suiteckey"
)

var suiteRoleCOnce sync.Once

// maMembers is a source account (role A, us-east-1) and two joining ones
// (role B, eu-west-1; role C, ap-south-1) on the model, the source's
// AWSAccount admitting both for their namespaces, each joining AWSAccount
// admitting account A as a source.
type maMembers struct {
	gap                       *ddbgap.Server
	nsSrc, nsB, nsC           string
	srcAcct, bAcct, cAcct     *awsv1alpha1.AWSAccount
	rawA, rawB, rawC          *awsdynamodb.Client
	regionA, regionB, regionC string
	table, arnA, arnB, arnC   string
	label                     func(*awsv1alpha1.DynamoDBTable)
	source, joinerB, joinerC  *awsv1alpha1.DynamoDBTable
}

func (s *ddbSuite) maMembers(t *testing.T, prefix string, label func(*awsv1alpha1.DynamoDBTable)) *maMembers {
	t.Helper()
	g := NewWithT(t)
	suiteRoleCOnce.Do(func() {
		s.STS.AddRole(ststest.Role{ARN: suiteRoleC, Trusts: []string{"tethertest"}, AccessKeyID: suiteKeyC})
	})
	w := &maMembers{regionA: "us-east-1", regionB: "eu-west-1", regionC: "ap-south-1", label: label}
	if w.label == nil {
		w.label = func(*awsv1alpha1.DynamoDBTable) {}
	}
	// Tagging: the owner tag proves, after a restart, whose table is whose.
	w.gap = ddbgap.New(s.Local, ddbgap.Options{Tagging: true,
		Accounts: map[string]string{ctrltest.KeyA: suiteAccountA, ctrltest.KeyB: suiteAccountB, suiteKeyC: suiteAccountC}})
	url, err := w.gap.Listen()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = w.gap.Close() })
	w.nsSrc, w.nsB, w.nsC = ctrltest.TableName(prefix+"-src"), ctrltest.TableName(prefix+"-b"), ctrltest.TableName(prefix+"-c")
	for _, ns := range []string{w.nsSrc, w.nsB, w.nsC} {
		s.createNamespace(t, ns, nil, nil)
	}
	w.srcAcct = s.CreateAccount(t, ctrltest.TableName(prefix+"-src-account"), ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.Endpoint, a.Spec.Region = url, w.regionA
		a.Spec.NamespaceSelector.Names = []string{w.nsSrc}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{ReplicaAccounts: []string{suiteAccountB, suiteAccountC},
			ReplicaNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{w.nsB, w.nsC}}}
	})
	joining := func(ns, region string) func(a *awsv1alpha1.AWSAccount) {
		return func(a *awsv1alpha1.AWSAccount) {
			a.Spec.Endpoint, a.Spec.Region = url, region
			a.Spec.NamespaceSelector.Names = []string{ns}
			a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{SourceAccounts: []string{suiteAccountA},
				JoinNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{ns}}}
		}
	}
	w.bAcct = s.CreateAccount(t, ctrltest.TableName(prefix+"-b-account"), ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		joining(w.nsB, w.regionB)(a)
	})
	w.cAcct = s.CreateAccount(t, ctrltest.TableName(prefix+"-c-account"), suiteRoleC, joining(w.nsC, w.regionC))
	w.rawA, w.rawB, w.rawC = rawAs(t, url, ctrltest.KeyA, w.regionA), rawAs(t, url, ctrltest.KeyB, w.regionB), rawAs(t, url, suiteKeyC, w.regionC)
	w.table = ctrltest.TableName(prefix)
	w.arnA = "arn:aws:dynamodb:" + w.regionA + ":" + suiteAccountA + ":table/" + w.table
	w.arnB = "arn:aws:dynamodb:" + w.regionB + ":" + suiteAccountB + ":table/" + w.table
	w.arnC = "arn:aws:dynamodb:" + w.regionC + ":" + suiteAccountC + ":table/" + w.table
	w.source = ctrltest.NewTable(w.nsSrc, "orders", w.label, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = w.table
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: w.srcAcct.Name}
	})
	w.joinerB = w.joiner(w.nsB, w.bAcct)
	w.joinerC = w.joiner(w.nsC, w.cAcct)
	return w
}

// joiner is a DynamoDBTable of ns that joins the source by tableRef.
func (w *maMembers) joiner(ns string, acct *awsv1alpha1.AWSAccount, mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	return ctrltest.NewTable(ns, "orders-replica", append([]func(*awsv1alpha1.DynamoDBTable){w.label, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = w.table
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: w.nsSrc, Name: "orders"}}
	}}, mutate...)...)
}

// namedMembers are the members a table's replication statement names (its
// aws:SourceArn condition), nil when it has none.
func namedMembers(g Gomega, c *awsdynamodb.Client, arn string) any {
	st, ok := statementsOf(g, policyOf(g, c, arn))["TetherGlobalTableReplication"]
	if !ok {
		return nil
	}
	cond, _ := st["Condition"].(map[string]any)
	like, _ := cond["ArnLike"].(map[string]any)
	return like["aws:SourceArn"]
}

// streamOf is the table's stream view type, "" for none.
func streamOf(g Gomega, c *awsdynamodb.Client, table string) types.StreamViewType {
	out, err := c.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
	if ss := out.Table.StreamSpecification; ss != nil && aws.ToBool(ss.StreamEnabled) {
		return ss.StreamViewType
	}
	return ""
}

// MODEL (internal/ddbgap checks every member's statements on each join, as
// AWS does: developerguide/globaltables_MA_security.html): a global table
// of three accounts. A source in account A, a member in account B, then a
// third in account C: C's join is accepted once every member's policy
// names all three (the source's, B's, and the one C joins with), and all
// three are Ready, each policy naming every member. Before, B's policy
// named only A and B, and the model refused C's join (or, on the model
// that checked only the source, C joined while B's policy did not name
// it).
func TestDynamoDBTableMultiAccountThirdMemberEveryPolicyNamesAll(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.maMembers(t, "ma-three", nil)
	s.Create(t, w.source)
	s.EventuallyReady(t, w.source)
	s.Create(t, w.joinerB)
	s.EventuallyReady(t, w.joinerB)
	g.Eventually(func(g Gomega) any { return namedMembers(g, w.rawB, w.arnB) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(w.arnA, w.arnB))

	s.Create(t, w.joinerC)
	joined := s.EventuallyReady(t, w.joinerC)
	g.Expect(joined.Status.Replicas).To(ConsistOf(HaveField("RegionName", w.regionA), HaveField("RegionName", w.regionB)))
	all := []any{w.arnA, w.arnB, w.arnC}
	for arn, c := range map[string]*awsdynamodb.Client{w.arnA: w.rawA, w.arnB: w.rawB, w.arnC: w.rawC} {
		g.Eventually(func(g Gomega) any { return namedMembers(g, c, arn) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(all...), "the policy of %s", arn)
	}
	s.EventuallyReady(t, w.source)
	s.EventuallyReady(t, w.joinerB)

	// C leaves: the other two name it no more.
	g.Expect(s.Client.Delete(ctx, w.joinerC.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.joinerC)
	for arn, c := range map[string]*awsdynamodb.Client{w.arnA: w.rawA, w.arnB: w.rawB} {
		g.Eventually(func(g Gomega) any { return namedMembers(g, c, arn) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(w.arnA, w.arnB), "the policy of %s", arn)
	}
	g.Expect(s.Client.Delete(ctx, w.joinerB.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.joinerB)
	g.Expect(s.Client.Delete(ctx, w.source.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.source)
}

// MODEL: the source keeps a leaving joiner's statements and its stream
// until the joiner has left. A joiner whose spec says onDelete:
// Disassociate is deleted while its own disassociation protection is on:
// its leave waits (ReplicaDisassociationRefused), and it is still a
// member. The source, woken meanwhile, still names it in its policy and
// still streams NEW_AND_OLD_IMAGES; once the joiner's protection is off and
// it has left, the source's statements go. Before, the source withdrew
// them as soon as the joiner's object had a deletion timestamp.
func TestDynamoDBTableMultiAccountSourceKeepsLeavingJoiner(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.maMembers(t, "ma-leaving", nil)
	joiner := w.joiner(w.nsB, w.bAcct, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.GlobalTableSource.OnDelete = awsv1alpha1.GlobalTableOnDeleteDisassociate
	})
	s.Create(t, w.source)
	s.EventuallyReady(t, w.source)
	s.Create(t, joiner)
	s.EventuallyReady(t, joiner)
	g.Eventually(func(g Gomega) any { return namedMembers(g, w.rawA, w.arnA) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(w.arnA, w.arnB))

	g.Expect(s.Client.Delete(ctx, joiner.DeepCopy())).To(Succeed())
	s.eventuallySynced(t, joiner, "False/ReplicaDisassociationRefused")
	s.nudge(t, w.source)
	g.Consistently(func(g Gomega) {
		g.Expect(namedMembers(g, w.rawA, w.arnA)).To(ConsistOf(w.arnA, w.arnB), "the leaving joiner is still named")
		g.Expect(streamOf(g, w.rawA, w.table)).To(Equal(types.StreamViewTypeNewAndOldImages), "the source still streams for it")
	}, "4s", ctrltest.DDBPoll).Should(Succeed())
	d, err := w.rawA.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(w.table)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Table.Replicas).To(ContainElement(HaveField("RegionName", aws.String(w.regionB))), "it is still a member")

	s.update(t, joiner, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DisassociationProtectionEnabled = aws.Bool(false) })
	s.eventuallyGone(t, joiner)
	g.Eventually(func(g Gomega) any { return namedMembers(g, w.rawA, w.arnA) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeNil(), "its statements go once it has left")
	g.Expect(s.Client.Delete(ctx, w.source.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.source)
}

// MODEL: a global table of two dissolved. A joiner was a Ready member; its
// table is then disassociated behind Tether's back (the model makes both a
// table of their own, as AWS does with two members,
// developerguide/globaltables-disassociate.html). Tether reports it as no
// member any more (GlobalTableNotMember, saying it left), not as an
// endpoint that does not support multi-account global tables, which it
// said before; the source, a plain table again, stays Ready.
func TestDynamoDBTableMultiAccountDissolvedIsReportedAsSuch(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	w := s.maMembers(t, "ma-dissolved", nil)
	s.Create(t, w.source)
	s.EventuallyReady(t, w.source)
	s.Create(t, w.joinerB)
	s.EventuallyReady(t, w.joinerB)

	_, err := w.rawB.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(w.table), DisassociationProtectionEnabled: aws.Bool(false)})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = w.rawB.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(w.table), ReplicaUpdates: []types.ReplicationGroupUpdate{{
		Disassociate: &types.DisassociateReplicationGroupMemberAction{RegionName: aws.String(w.regionB), DisassociationMode: types.DisassociationModeWaitForReplication}}}})
	g.Expect(err).NotTo(HaveOccurred())
	s.nudge(t, w.joinerB)
	var got *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		got = s.Get(g, w.joinerB)
		return ctrltest.Condition(got, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/" + dynamodb.ReasonGlobalTableNotMember))
	msg := meta.FindStatusCondition(got.Status.Conditions, "Ready").Message
	g.Expect(msg).To(ContainSubstring("no member of a global table"))
	g.Expect(msg).NotTo(ContainSubstring("does not support"))
	s.nudge(t, w.source)
	g.Consistently(func(g Gomega) string { return ctrltest.Condition(s.Get(g, w.source), "Ready") }, "2s", ctrltest.DDBPoll).Should(Equal("True/Available"))

	g.Expect(s.Client.Delete(ctx, w.joinerB.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.joinerB)
	g.Expect(s.Client.Delete(ctx, w.source.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, w.source)
}

// MODEL: after a manager restart, Tether knows its own replication
// policies again from their content alone. A source (A) and a member (B)
// are Ready under one manager, which stops; while none runs, a third
// member (C) is declared. A new manager (its in-memory record of the
// policy revisions it wrote empty) finds on A and B policies that are
// exactly Tether's replication statements for them, and replaces them with
// ones naming all three, and C joins. Before, A and B stopped with
// GlobalTablePolicyNotOwned, and C's join was refused.
func TestDynamoDBTableMultiAccountPoliciesProvenAfterRestart(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	own := func(o *awsv1alpha1.DynamoDBTable) {
		o.Labels = map[string]string{ctrltest.LabelOwnManager: "ma-restart"}
	}
	w := s.maMembers(t, "ma-restart", own)
	start := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		mgr, err := ctrltest.NewManager(ctrltest.TablesOfManager(true))
		g.Expect(err).NotTo(HaveOccurred())
		_, err = controllers.SetupDynamoDBTable(mgr, ctrltest.DDBPollInterval, dynamodb.Options{SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond})
		g.Expect(err).NotTo(HaveOccurred())
		done := make(chan struct{})
		go func() { _ = mgr.Start(ctx); close(done) }()
		return func() {
			cancel()
			g.Eventually(done, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeClosed())
		}
	}
	stop := start()
	t.Cleanup(func() { stop() })
	s.Create(t, w.source)
	s.EventuallyReady(t, w.source)
	s.Create(t, w.joinerB)
	s.EventuallyReady(t, w.joinerB)
	g.Eventually(func(g Gomega) any { return namedMembers(g, w.rawA, w.arnA) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(w.arnA, w.arnB))
	g.Eventually(func(g Gomega) any { return namedMembers(g, w.rawB, w.arnB) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(w.arnA, w.arnB))
	stop()

	s.Create(t, w.joinerC)
	stop = start()
	s.EventuallyReady(t, w.joinerC)
	all := []any{w.arnA, w.arnB, w.arnC}
	for arn, c := range map[string]*awsdynamodb.Client{w.arnA: w.rawA, w.arnB: w.rawB, w.arnC: w.rawC} {
		g.Eventually(func(g Gomega) any { return namedMembers(g, c, arn) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(ConsistOf(all...), "the policy of %s", arn)
	}
	for _, o := range []*awsv1alpha1.DynamoDBTable{w.source, w.joinerB} {
		s.EventuallyReady(t, o)
	}
	for _, o := range []*awsv1alpha1.DynamoDBTable{w.joinerC, w.joinerB, w.source} {
		g.Expect(s.Client.Delete(context.Background(), o.DeepCopy())).To(Succeed())
		s.eventuallyGone(t, o)
	}
}

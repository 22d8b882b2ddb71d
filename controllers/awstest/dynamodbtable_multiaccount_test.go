package awstest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// The suite's accounts as the model knows them (roles A and B).
const (
	suiteAccountA = "111111111111"
	suiteAccountB = "222222222222"
)

// rawAs is a client of endpoint acting as one access key in one Region,
// behind Tether's back.
func rawAs(t *testing.T, endpoint, key, region string) *awsdynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	return awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
}

// policyOf is the table's resource policy as the model holds it, "" for
// none.
func policyOf(g Gomega, c *awsdynamodb.Client, arn string) string {
	out, err := c.GetResourcePolicy(context.Background(), &awsdynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil {
		return ""
	}
	return aws.ToString(out.Policy)
}

// statementsOf are a policy's statements by Sid.
func statementsOf(g Gomega, doc string) map[string]map[string]any {
	out := map[string]map[string]any{}
	if doc == "" {
		return out
	}
	var p struct{ Statement []map[string]any }
	g.Expect(json.Unmarshal([]byte(doc), &p)).To(Succeed())
	for _, s := range p.Statement {
		sid, _ := s["Sid"].(string)
		out[sid] = s
	}
	return out
}

// MODEL (DynamoDB Local ignores GlobalTableSourceArn): multi-account global
// tables through the real reconciler and API server, two AWSAccounts (roles
// A and B of the STS model, accounts 111111111111 and 222222222222) on the
// model internal/ddbgap (multiaccount.go cites AWS's rules). A source in
// account A whose AWSAccount lets account B and the joining namespace join;
// a table in account B joins it: the source's policy gets the replication
// statements, its stream and settings replication, the join is accepted and both are Ready, each
// listing the other's Region. A namespace whose AWSAccount does not admit
// account A as a source, and a hostile tenant whose own AWSAccount does but
// which names the source's ARN from a namespace the source's AWSAccount
// does not admit, are refused with GlobalTableSourceNotAllowed and send no
// CreateTable. A source no object holds, without the statements, is
// refused by AWS: the condition prints the statements its owner must add,
// and Tether writes nothing to it. Deleting the joiner deletes its table,
// and the source lists it no more; a joiner whose spec says onDelete:
// Disassociate leaves and stays a table of its own instead, once its own
// disassociation protection is off.
func TestDynamoDBTableMultiAccountGlobalTableOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	gap := ddbgap.New(s.Local, ddbgap.Options{Accounts: map[string]string{ctrltest.KeyA: suiteAccountA, ctrltest.KeyB: suiteAccountB}})
	url, err := gap.Listen()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = gap.Close() })
	const srcRegion, joinRegion = "us-east-1", "eu-west-1"
	nsSrc, nsJoin, nsHostile, nsNarrow := ctrltest.TableName("ma-src"), ctrltest.TableName("ma-join"), ctrltest.TableName("ma-hostile"), ctrltest.TableName("ma-narrow")
	for _, ns := range []string{nsSrc, nsJoin, nsHostile, nsNarrow} {
		s.createNamespace(t, ns, nil, nil)
	}
	srcAcct := s.CreateAccount(t, ctrltest.TableName("ma-src-account"), ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.Endpoint, a.Spec.Region = url, srcRegion
		a.Spec.NamespaceSelector.Names = []string{nsSrc}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{ReplicaAccounts: []string{suiteAccountB},
			ReplicaNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{nsJoin}}}
	})
	joinAcct := s.CreateAccount(t, ctrltest.TableName("ma-join-account"), ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.Endpoint, a.Spec.Region = url, joinRegion
		a.Spec.NamespaceSelector.Names = []string{nsJoin, nsHostile}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{SourceAccounts: []string{suiteAccountA},
			JoinNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{nsJoin, nsHostile}}}
	})
	narrowAcct := s.CreateAccount(t, ctrltest.TableName("ma-narrow-account"), ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.Endpoint, a.Spec.Region = url, joinRegion
		a.Spec.NamespaceSelector.Names = []string{nsNarrow}
		// It lets the namespace join, but not account A's tables.
		a.Spec.Tenancy.GlobalTables.JoinNamespaces.Names = []string{nsNarrow}
	})
	rawA, rawB := rawAs(t, url, ctrltest.KeyA, srcRegion), rawAs(t, url, ctrltest.KeyB, joinRegion)
	tableName := ctrltest.TableName("ma-orders")
	srcArn := "arn:aws:dynamodb:" + srcRegion + ":" + suiteAccountA + ":table/" + tableName
	joinArn := "arn:aws:dynamodb:" + joinRegion + ":" + suiteAccountB + ":table/" + tableName

	source := ctrltest.NewTable(nsSrc, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: srcAcct.Name}
	})
	s.Create(t, source)
	s.EventuallyReady(t, source)
	g.Expect(statementsOf(g, policyOf(g, rawA, srcArn))).To(BeEmpty(), "no joiner yet: no statements")

	// Refused before any call: a namespace whose AWSAccount does not admit
	// account A as a source, and a hostile tenant naming the source's ARN.
	creates := gap.Calls("CreateTable")
	narrow := ctrltest.NewTable(nsNarrow, "narrow", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ma-narrow")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: narrowAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: nsSrc, Name: source.Name}}
	})
	hostile := ctrltest.NewTable(nsHostile, "hostile", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ma-hostile")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: srcArn}
	})
	s.Create(t, narrow)
	s.Create(t, hostile)
	// Both name the source only as their spec does: not the ARN a tableRef
	// resolves to, nor the other namespace's object or AWSAccount.
	refusedNarrow := s.eventuallySynced(t, narrow, "False/"+dynamodb.ReasonGlobalTableSourceNotAllowed)
	narrowMsg := meta.FindStatusCondition(refusedNarrow.Status.Conditions, "Synced").Message
	g.Expect(narrowMsg).To(ContainSubstring("spec.tenancy.globalTables.sourceAccounts"))
	g.Expect(narrowMsg).To(ContainSubstring("DynamoDBTable " + nsSrc + "/" + source.Name + " (tableRef)"))
	g.Expect(narrowMsg).NotTo(Or(ContainSubstring(srcArn), ContainSubstring(suiteAccountA), ContainSubstring(srcAcct.Name)))
	refusedHostile := s.eventuallySynced(t, hostile, "False/"+dynamodb.ReasonGlobalTableSourceNotAllowed)
	hostileMsg := meta.FindStatusCondition(refusedHostile.Status.Conditions, "Synced").Message
	g.Expect(hostileMsg).To(ContainSubstring("replicaNamespaces"))
	g.Expect(hostileMsg).NotTo(Or(ContainSubstring(nsSrc), ContainSubstring(srcAcct.Name)))
	// Woken inside the window (an annotation's change), they still send
	// nothing.
	s.nudge(t, narrow)
	s.nudge(t, hostile)
	g.Consistently(func() int { return gap.Calls("CreateTable") }, "2s", ctrltest.DDBPoll).Should(Equal(creates), "no CreateTable for a refused join")
	g.Expect(statementsOf(g, policyOf(g, rawA, srcArn))).To(BeEmpty(), "the hostile tenant is granted nothing on the source")

	// The joiner: the source's AWSAccount admits it, the source gets the
	// statements and the stream, the join is accepted.
	joiner := ctrltest.NewTable(nsJoin, "orders-replica", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = tableName
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: nsSrc, Name: source.Name}}
	})
	s.Create(t, joiner)
	joined := s.EventuallyReady(t, joiner)
	g.Expect(joined.Status.GlobalTableSourceArn).To(Equal(srcArn))
	g.Expect(joined.Status.Replicas).To(ContainElement(HaveField("RegionName", srcRegion)), "the joiner lists the source's Region")
	g.Expect(gap.Calls(ddbgap.CallJoin)).To(BeNumerically(">=", 1))
	s.EventuallyReady(t, source)
	d, err := rawA.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Table.StreamSpecification.StreamViewType).To(Equal(types.StreamViewTypeNewAndOldImages), "the source streams for its replicas")
	g.Expect(d.Table.Replicas).To(ContainElement(HaveField("RegionName", aws.String(joinRegion))), "the source lists the joiner")
	// The model refuses a join until the source's settings replication is
	// ENABLED, and does not report the mode of a regional table: Tether
	// enabled it once, and did not send it again for want of seeing it.
	// (Events name the step sent first, then the ones planned after it.)
	g.Consistently(func(g Gomega) int {
		return s.eventsNoting(g, source, "updated: enable settings replication") + s.eventsNoting(g, source, "drift: enable settings replication")
	}, "2s", ctrltest.DDBPoll).Should(Equal(1))
	src := statementsOf(g, policyOf(g, rawA, srcArn))
	g.Expect(src).To(HaveKey("TetherGlobalTableReplication"))
	g.Expect(src["TetherGlobalTableReplication"]["Principal"]).To(Equal(map[string]any{"Service": "replication.dynamodb.amazonaws.com"}))
	g.Expect(src["TetherGlobalTableReplication"]["Action"]).To(ConsistOf("dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings"))
	g.Expect(src["TetherGlobalTableReplication"]["Condition"]).To(Equal(map[string]any{
		"StringEquals": map[string]any{"aws:SourceAccount": []any{suiteAccountA, suiteAccountB}},
		"ArnLike":      map[string]any{"aws:SourceArn": []any{joinArn, srcArn}},
	}))
	g.Expect(src).To(HaveKey("TetherGlobalTableAssociate"))
	g.Expect(src["TetherGlobalTableAssociate"]["Principal"]).To(Equal(map[string]any{"AWS": []any{"arn:aws:iam::" + suiteAccountB + ":root"}}))
	g.Expect(statementsOf(g, policyOf(g, rawB, joinArn))).To(HaveKey("TetherGlobalTableReplication"), "the joiner grants the mirror statement")
	g.Expect(s.Get(g, hostile).Status.TableID).To(BeEmpty(), "still refused")

	// A source no object holds, without the statements: AWS refuses, the
	// condition prints what its owner must add, nothing is written to it.
	foreign := ctrltest.TableName("ma-foreign")
	_, err = rawA.CreateTable(ctx, &awsdynamodb.CreateTableInput{TableName: aws.String(foreign), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	g.Expect(err).NotTo(HaveOccurred())
	foreignArn := "arn:aws:dynamodb:" + srcRegion + ":" + suiteAccountA + ":table/" + foreign
	joinsBefore := gap.Calls(ddbgap.CallJoin)
	stranger := ctrltest.NewTable(nsJoin, "stranger", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = foreign
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: foreignArn}
	})
	s.Create(t, stranger)
	told := s.eventuallySynced(t, stranger, "False/"+dynamodb.ReasonGlobalTableJoinRefused)
	msg := meta.FindStatusCondition(told.Status.Conditions, "Synced").Message
	g.Expect(msg).To(ContainSubstring("dynamodb:AssociateTableReplica"))
	g.Expect(msg).To(ContainSubstring("replication.dynamodb.amazonaws.com"))
	g.Expect(msg).To(ContainSubstring("arn:aws:iam::" + suiteAccountB + ":root"))
	// Woken inside joinRefusedDelay (an annotation's change; the source's
	// or an AWSAccount's change wakes it the same way), the refused join is
	// not sent again.
	g.Expect(gap.Calls(ddbgap.CallJoin)).To(Equal(joinsBefore + 1))
	s.nudge(t, stranger)
	g.Consistently(func() int { return gap.Calls(ddbgap.CallJoin) }, "3s", ctrltest.DDBPoll).Should(Equal(joinsBefore+1), "one join for the refusal, not one per look")
	g.Expect(s.Get(g, stranger).Status.Conditions).To(ContainElement(HaveField("Reason", dynamodb.ReasonGlobalTableJoinRefused)), "the refusal still shown")
	g.Expect(policyOf(g, rawA, foreignArn)).To(BeEmpty(), "Tether writes nothing to a source it does not hold")

	// Leaving: the joiner's table is deleted in its account and Region, and
	// the source lists it no more.
	g.Expect(s.Client.Delete(ctx, joiner.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, joiner)
	_, err = rawB.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	g.Expect(err).To(HaveOccurred(), "the replica is deleted")
	g.Eventually(func(g Gomega) []types.ReplicaDescription {
		out, err := rawA.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table.Replicas
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeEmpty())
	g.Eventually(func(g Gomega) map[string]map[string]any {
		return statementsOf(g, policyOf(g, rawA, srcArn))
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeEmpty(), "the source's statements go with its last joiner")
	// Leaving but keeping the table (onDelete: Disassociate): refused while
	// its own disassociation protection is on (AWS's default) and not
	// deleted instead; once the spec turns it off, the table leaves and
	// stays in its account and Region, which Tether lets go of.
	const keepRegion = "ap-south-1"
	rawKeep := rawAs(t, url, ctrltest.KeyB, keepRegion)
	keeper := ctrltest.NewTable(nsJoin, "orders-kept", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName, o.Spec.Region = tableName, keepRegion
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: joinAcct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{OnDelete: awsv1alpha1.GlobalTableOnDeleteDisassociate,
			TableRef: &awsv1alpha1.GlobalTableSourceRef{Namespace: nsSrc, Name: source.Name}}
	})
	s.Create(t, keeper)
	kept := s.EventuallyReady(t, keeper)
	g.Expect(kept.Status.DisassociationProtectionEnabled).To(Equal(aws.Bool(true)), "AWS's default, as the model reports it")
	disassociations := gap.Calls(ddbgap.CallDisassociate)
	g.Expect(s.Client.Delete(ctx, keeper.DeepCopy())).To(Succeed())
	s.eventuallySynced(t, keeper, "False/ReplicaDisassociationRefused")
	s.nudge(t, keeper)
	g.Consistently(func() int { return gap.Calls(ddbgap.CallDisassociate) }, "2s", ctrltest.DDBPoll).Should(Equal(disassociations), "not sent while the protection is on, woken or not")
	g.Expect(rawKeep.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})).Error().NotTo(HaveOccurred(), "not deleted instead")
	s.update(t, keeper, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.DisassociationProtectionEnabled = aws.Bool(false) })
	s.eventuallyGone(t, keeper)
	g.Expect(gap.Calls(ddbgap.CallDisassociate)).To(Equal(disassociations+1), "one Disassociate")
	own, err := rawKeep.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	g.Expect(err).NotTo(HaveOccurred(), "the former replica stays in %s", keepRegion)
	g.Expect(own.Table.Replicas).To(BeEmpty())
	g.Expect(own.Table.GlobalTableVersion).To(BeNil())
	g.Eventually(func(g Gomega) []types.ReplicaDescription {
		out, err := rawA.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(tableName)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table.Replicas
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeEmpty(), "the source lists it no more")

	for _, o := range []*awsv1alpha1.DynamoDBTable{stranger, hostile, narrow, source} {
		g.Expect(s.Client.Delete(ctx, o.DeepCopy())).To(Succeed())
	}
	s.eventuallyGone(t, source)
}

// DynamoDB Local (no model): it does not know GlobalTableSourceArn, and
// asks for the key schema a join does not send. Tether says the endpoint
// does not support multi-account global tables (UnsupportedByEndpoint),
// never Ready, and no table is made in its place.
func TestDynamoDBTableJoinOnDynamoDBLocalIsUnsupported(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ns := ctrltest.TableName("ma-local")
	s.createNamespace(t, ns, nil, nil)
	acct := s.CreateAccount(t, ctrltest.TableName("ma-local-account"), ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.NamespaceSelector.Names = []string{ns}
		a.Spec.Tenancy.GlobalTables = awsv1alpha1.GlobalTablesTenancy{SourceAccounts: []string{suiteAccountA},
			JoinNamespaces: awsv1alpha1.NamespaceSelector{Names: []string{ns}}}
	})
	name := ctrltest.TableName("ma-local")
	obj := ctrltest.NewTable(ns, "joiner", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = name
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct.Name}
		o.Spec.GlobalTableSource = &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-west-2:" + suiteAccountA + ":table/" + name}
	})
	s.Create(t, obj)
	var got *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		got = s.Get(g, obj)
		return ctrltest.Condition(got, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/" + dynamodb.ReasonUnsupportedByEndpoint))
	g.Expect(meta.FindStatusCondition(got.Status.Conditions, "Ready").Message).To(ContainSubstring("GlobalTableSourceArn"))
	g.Expect(s.tablesAs(t, ctrltest.KeyB, got.Status.Region)).NotTo(ContainElement(name), "no plain table in its place")
	g.Expect(s.Client.Delete(context.Background(), obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
}

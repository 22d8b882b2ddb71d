package awstest

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// What one namespace may do to another's tables, through the real
// reconciler, API server and SDK clients, with a hostile tenant in a
// namespace of its own. MODEL: restores, resource policies and Application
// Auto Scaling are answered by internal/ddbgap (AWS's documented rules;
// DynamoDB Local lacks them), STS by internal/ststest; the tables and their
// items are DynamoDB Local's.

// trustModel is the model endpoint an AWSAccount of these tests points at.
func trustModel(t *testing.T, s *ddbSuite) string {
	t.Helper()
	gap := ddbgap.New(s.Local, ddbgap.Options{})
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	return url
}

// rawAt is a DynamoDB client of an endpoint as one access key id in
// us-east-1: one account's view, behind Tether's back.
func rawAt(t *testing.T, url, key string) *awsdynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	return awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

// createOnModel creates the object; when the test ends it is deleted and
// awaited, before the model it uses stops answering (cleanups run last in,
// first out).
func (s *ddbSuite) createOnModel(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	s.Create(t, obj)
	t.Cleanup(func() {
		_ = client.IgnoreNotFound(s.Client.Delete(context.Background(), obj.DeepCopy()))
		s.eventuallyGone(t, obj)
	})
}

func putItems(t *testing.T, db *awsdynamodb.Client, table string, n int) {
	t.Helper()
	for i := range n {
		if _, err := db.PutItem(context.Background(), &awsdynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("secret-", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// publicPolicy grants an account outside the table's every read.
const publicPolicy = `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
  "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "dynamodb:*", "Resource": "*"}]}`

// Item 7 of issue 23: a tenant restores another namespace's table into its
// own, and publishes a table to a principal outside the account. Both
// namespaces are admitted by one AWSAccount (one AWS account): by default a
// restore source must be a table of a DynamoDBTable in the restoring
// object's own namespace, and a resource policy may only name principals of
// the table's own account. Nothing is created, nothing is sent, and the
// conditions say why; the victim's own namespace may still restore it.
func TestDynamoDBTableTenantCannotRestoreOrPublishAnotherNamespacesTable(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	url := trustModel(t, s)
	victimNS, tenantNS, acct := ctrltest.TableName("victim"), ctrltest.TableName("tenant"), ctrltest.TableName("account-shared")
	s.createNamespace(t, victimNS, nil, nil)
	s.createNamespace(t, tenantNS, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{victimNS, tenantNS}
		a.Spec.Endpoint = url
	})
	inAccount := func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
	}
	victim := ctrltest.NewTable(victimNS, "payments", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("payments")
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	})
	s.createOnModel(t, victim)
	ready := s.EventuallyReady(t, victim)
	db := rawAt(t, url, ctrltest.KeyA)
	putItems(t, db, victim.Spec.TableName, 3)

	restoring := ctrltest.NewTable(tenantNS, "stolen", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("stolen")
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: ready.Status.TableArn, UseLatestRestorableTime: true}}
	})
	publishing := ctrltest.NewTable(tenantNS, "published", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("published")
		o.Spec.ResourcePolicy = &runtime.RawExtension{Raw: []byte(publicPolicy)}
	})
	s.createOnModel(t, restoring)
	s.createOnModel(t, publishing)
	refused := s.eventuallySynced(t, restoring, "False/RestoreNotAllowed")
	g.Expect(conditionMessage(refused, "Synced")).To(ContainSubstring(ready.Status.TableArn))
	unpublished := s.eventuallySynced(t, publishing, "False/PolicyNotAllowed")
	g.Expect(conditionMessage(unpublished, "Synced")).To(ContainSubstring("999999999999"))
	g.Consistently(func() []string { return s.tablesAs(t, ctrltest.KeyA, "us-east-1") }, "2s", ctrltest.DDBPoll).ShouldNot(
		Or(ContainElement(restoring.Spec.TableName), ContainElement(publishing.Spec.TableName)),
		"no copy of the victim's data, no table published outside the account")

	// The victim's own namespace restores its own table.
	own := ctrltest.NewTable(victimNS, "payments-copy", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("payments-copy")
		o.Spec.RestoreFrom = restoring.Spec.RestoreFrom
	})
	s.createOnModel(t, own)
	s.EventuallyReady(t, own)
	count, err := db.Scan(context.Background(), &awsdynamodb.ScanInput{TableName: aws.String(own.Spec.TableName), Select: types.SelectCount})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(count.Count).To(BeEquivalentTo(3))
}

// Item 10 of issue 23: an AWSAccount whose role now belongs to another AWS
// account (a role changed, or the AWSAccount deleted and re-created under
// the same name) does not make its tables again, empty, in that account:
// the object says AccountChanged, nothing is created there, nothing is
// deleted in the first account; back on the first role it is Ready again.
func TestDynamoDBTableAccountChangeCreatesAndDeletesNothing(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ns, acct := ctrltest.TableName("team-moved"), ctrltest.TableName("account-moved")
	s.createNamespace(t, ns, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) { a.Spec.NamespaceSelector.Names = []string{ns} })
	obj := ctrltest.NewTable(ns, "ledger", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ledger")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(obj.Spec.TableName))

	setRole := func(role, externalID string) {
		g.Eventually(func(g Gomega) {
			a := &awsv1alpha1.AWSAccount{}
			g.Expect(s.Client.Get(context.Background(), client.ObjectKey{Name: acct}, a)).To(Succeed())
			a.Spec.AssumeRole = awsv1alpha1.AssumeRole{RoleARN: role, ExternalID: externalID}
			g.Expect(s.Client.Update(context.Background(), a)).To(Succeed())
		}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	}
	setRole(ctrltest.RoleB, ctrltest.ExternalIDB)
	moved := s.eventuallySynced(t, obj, "False/AccountChanged")
	g.Expect(conditionMessage(moved, "Synced")).To(And(ContainSubstring("111111111111"), ContainSubstring("222222222222")))
	g.Consistently(func() []string { return s.tablesAs(t, ctrltest.KeyB, "us-east-1") }, "2s", ctrltest.DDBPoll).
		ShouldNot(ContainElement(obj.Spec.TableName), "no empty table in the other account")
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(obj.Spec.TableName), "nothing deleted")
	g.Expect(s.eventReasons(g, obj)).NotTo(ContainElement("TableDeleted"))

	setRole(ctrltest.RoleA, "")
	s.EventuallyReady(t, obj)
}

// Item 12 of issue 23: deleting an autoscaled table deregisters the
// scalable targets (and with them the scaling policies) Tether registered:
// AWS does not remove them with the table, and a later table of the same
// name would inherit them.
func TestDynamoDBTableDeleteDeregistersItsAutoscaling(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	url := trustModel(t, s)
	ns, acct := ctrltest.TableName("team-scaled"), ctrltest.TableName("account-scaled")
	s.createNamespace(t, ns, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{ns}
		a.Spec.Endpoint = url
	})
	policy := &awsv1alpha1.ScalingPolicy{MinCapacity: 5, MaxCapacity: 50, TargetUtilization: 70}
	obj := ctrltest.NewTable(ns, "scaled", ddbGSI("byStatus", "status", ddbCapacity(5, 5)), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("scaled")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = ddbCapacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: policy, Write: policy}
		o.Spec.GlobalSecondaryIndexes[0].AutoScaling = &awsv1alpha1.AutoScaling{Read: policy}
	})
	s.createOnModel(t, obj)
	ready := s.EventuallyReady(t, obj)
	g.Expect(ready.Status.ManagedScalableTargets).To(Equal([]string{"index/byStatus/read", "table/read", "table/write"}))
	scaling := scalingAt(t, url, ctrltest.KeyA)
	resources := []string{"table/" + obj.Spec.TableName, "table/" + obj.Spec.TableName + "/index/byStatus"}
	g.Expect(scalableTargets(t, scaling, resources)).To(HaveLen(3))

	g.Expect(s.Client.Delete(context.Background(), obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).NotTo(ContainElement(obj.Spec.TableName))
	g.Expect(scalableTargets(t, scaling, resources)).To(BeEmpty(), "targets left behind for a later table of that name")
	policies, err := scaling.DescribeScalingPolicies(context.Background(), &applicationautoscaling.DescribeScalingPoliciesInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb})
	g.Expect(err).NotTo(HaveOccurred())
	for _, p := range policies.ScalingPolicies {
		g.Expect(resources).NotTo(ContainElement(aws.ToString(p.ResourceId)), "policy %s left behind", aws.ToString(p.PolicyName))
	}
}

// scalingAt is an Application Auto Scaling client of an endpoint as one
// access key id in us-east-1.
func scalingAt(t *testing.T, url, key string) *applicationautoscaling.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	return applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) { o.BaseEndpoint = aws.String(url) })
}

func scalableTargets(t *testing.T, c *applicationautoscaling.Client, resources []string) []aastypes.ScalableTarget {
	t.Helper()
	out, err := c.DescribeScalableTargets(context.Background(), &applicationautoscaling.DescribeScalableTargetsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceIds: resources})
	if err != nil {
		t.Fatal(err)
	}
	return out.ScalableTargets
}

// Item 7 of issue 23, the other way: an AWSAccount that trusts its
// namespaces with any restore source of the account and with one other
// account's principals lets a namespace restore another's table and
// attach a policy naming that account; a principal of any other account
// is still refused.
func TestDynamoDBTableAccountWidensRestoreSourcesAndPrincipals(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	url := trustModel(t, s)
	ownerNS, readerNS, acct := ctrltest.TableName("owner"), ctrltest.TableName("reader"), ctrltest.TableName("account-wide")
	s.createNamespace(t, ownerNS, nil, nil)
	s.createNamespace(t, readerNS, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{ownerNS, readerNS}
		a.Spec.Endpoint = url
		a.Spec.Tenancy = awsv1alpha1.Tenancy{RestoreSources: awsv1alpha1.RestoreSourcesAccount, PolicyPrincipalAccounts: []string{"999999999999"}}
	})
	inAccount := func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
	}
	source := ctrltest.NewTable(ownerNS, "reports", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("reports")
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	})
	s.createOnModel(t, source)
	ready := s.EventuallyReady(t, source)
	putItems(t, rawAt(t, url, ctrltest.KeyA), source.Spec.TableName, 2)

	copied := ctrltest.NewTable(readerNS, "reports-copy", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("reports-copy")
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: ready.Status.TableArn, UseLatestRestorableTime: true}}
		o.Spec.ResourcePolicy = &runtime.RawExtension{Raw: []byte(publicPolicy)}
	})
	s.createOnModel(t, copied)
	withPolicy := s.EventuallyReady(t, copied)
	g.Expect(withPolicy.Status.ResourcePolicyRevisionID).NotTo(BeEmpty(), "the policy naming the allowed account is attached")

	elsewhere := ctrltest.NewTable(readerNS, "shared-elsewhere", inAccount, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("shared-elsewhere")
		o.Spec.ResourcePolicy = &runtime.RawExtension{Raw: []byte(`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
  "Principal": {"AWS": "arn:aws:iam::888888888888:root"}, "Action": "dynamodb:GetItem", "Resource": "*"}]}`)}
	})
	s.createOnModel(t, elsewhere)
	s.eventuallySynced(t, elsewhere, "False/PolicyNotAllowed")
}

// Item 8 of issue 23: adopting is the AWSAccount's to grant, per
// namespace. A hostile tenant whose namespace the account admits, but
// not for adoption, cannot take over a table it did not create (one left
// by Terraform, the console, a Retain'd object): AdoptionNotAllowed, the
// table untouched. Allowed to adopt, it manages the table; deleting the
// object leaves the table unless the object also says
// tether.dev/delete-adopted: "true".
func TestDynamoDBTableAdoptionIsTheAccountsToGrant(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	tenantNS, acct := ctrltest.TableName("adopter"), ctrltest.TableName("account-adopt")
	s.createNamespace(t, tenantNS, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) { a.Spec.NamespaceSelector.Names = []string{tenantNS} })
	name := ctrltest.TableName("terraformed")
	db := rawAt(t, s.Local, ctrltest.KeyA)
	_, err := db.CreateTable(ctx, &awsdynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	g.Expect(err).NotTo(HaveOccurred())

	obj := ctrltest.NewTable(tenantNS, "taken", func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{awsv1alpha1.AnnotationAdopt: "true"}
		o.Spec.TableName = name
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	})
	s.Create(t, obj)
	refused := s.eventuallySynced(t, obj, "False/AdoptionNotAllowed")
	g.Expect(conditionMessage(refused, "Synced")).To(ContainSubstring("adoptionNamespaces"))
	d, err := db.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(name)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Table.StreamSpecification).To(BeNil(), "the table was changed")

	g.Eventually(func(g Gomega) {
		a := &awsv1alpha1.AWSAccount{}
		g.Expect(s.Client.Get(ctx, client.ObjectKey{Name: acct}, a)).To(Succeed())
		a.Spec.Tenancy.AdoptionNamespaces.Names = []string{tenantNS}
		g.Expect(s.Client.Update(ctx, a)).To(Succeed())
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	adopted := s.EventuallyReady(t, obj)
	g.Expect(adopted.Status.Adopted).To(BeTrue())

	g.Expect(s.Client.Delete(ctx, obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(name), "an adopted table is deleted only with tether.dev/delete-adopted")
}

// Item 13 of issue 23: a manager that created the outputs ConfigMap and
// stopped before recording it finds it again by the owner-uid label it
// put on it, instead of calling it someone else's for ever; a ConfigMap
// labelled with another object's UID is still someone else's.
func TestDynamoDBTableOutputsConfigMapLabelledWithItsUIDIsItsOwn(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	paused := map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
	obj := ctrltest.NewTable("default", ctrltest.TableName("crashed-outputs"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = paused
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: ctrltest.TableName("crashed-outputs")}
	})
	other := ctrltest.NewTable("default", ctrltest.TableName("other-outputs"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = paused
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: ctrltest.TableName("other-outputs")}
	})
	s.Create(t, obj)
	s.Create(t, other)
	created := s.Get(g, obj)
	labelled := func(name string, uid string) {
		g.Expect(s.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
			Labels: map[string]string{dynamodb.TagOwnerUID: uid}}, Data: map[string]string{"TABLE_NAME": "stale"}})).To(Succeed())
	}
	labelled(obj.Spec.WriteOutputsTo.Name, string(created.UID))
	labelled(other.Spec.WriteOutputsTo.Name, "00000000-0000-0000-0000-000000000000")
	for _, o := range []*awsv1alpha1.DynamoDBTable{obj, other} {
		s.update(t, o, func(o *awsv1alpha1.DynamoDBTable) { delete(o.Annotations, commonv1alpha1.AnnotationReconcile) })
	}

	ready := s.EventuallyReady(t, obj)
	g.Expect(ready.Status.Outputs).NotTo(BeNil())
	cm := s.eventuallyOutputs(t, "default", obj.Spec.WriteOutputsTo.Name, func(g Gomega, data map[string]string) {
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputTableName, obj.Name))
	})
	g.Expect(ready.Status.Outputs.UID).To(Equal(string(cm.UID)))
	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, other), "Ready") }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/OutputsNotWritten"))
	g.Expect(conditionMessage(s.Get(g, other), "Ready")).To(ContainSubstring("was not created by Tether for this table"))
	g.Expect(s.configMapData(t, "default", other.Spec.WriteOutputsTo.Name)).To(Equal(map[string]string{"TABLE_NAME": "stale"}))
}

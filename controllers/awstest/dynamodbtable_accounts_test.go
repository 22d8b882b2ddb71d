package awstest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// Issue 14's scenario through the real reconciler, API server, DynamoDB
// Local and the SDK's stscreds provider (STS is a model, internal/ststest):
// two teams in two namespaces declare a table of the same name in two
// accounts through one Tether; each account's database holds only its own;
// the status says account, region and ARN; the application's ConfigMap is
// written, then updated when a stream is enabled.
func TestDynamoDBTablesOfTwoTeamsInTwoAccounts(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	nsA, nsB := ctrltest.TableName("team-a"), ctrltest.TableName("team-b")
	acctA, acctB := ctrltest.TableName("account-a"), ctrltest.TableName("account-b")
	s.createNamespace(t, nsA, nil, map[string]string{awsv1alpha1.AnnotationNamespaceAccount: acctA})
	s.createNamespace(t, nsB, map[string]string{"team": nsB}, nil)
	s.CreateAccount(t, acctA, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) { a.Spec.NamespaceSelector.Names = []string{nsA} })
	s.CreateAccount(t, acctB, ctrltest.RoleB, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.AssumeRole.ExternalID = ctrltest.ExternalIDB
		a.Spec.Region = "eu-west-1"
		a.Spec.NamespaceSelector.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": nsB}}
	})

	table := ctrltest.TableName("orders")
	a := ctrltest.NewTable(nsA, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = table
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: "orders-table"}
	})
	b := ctrltest.NewTable(nsB, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = table
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acctB}
	})
	s.Create(t, a)
	s.Create(t, b)
	readyA, readyB := s.EventuallyReady(t, a), s.EventuallyReady(t, b)

	g.Expect([]string{readyA.Status.Account, readyA.Status.AccountID, readyA.Status.Region}).To(Equal([]string{acctA, "111111111111", "us-east-1"}))
	g.Expect([]string{readyB.Status.Account, readyB.Status.AccountID, readyB.Status.Region}).To(Equal([]string{acctB, "222222222222", "eu-west-1"}))
	g.Expect(readyA.Status.TableArn).To(HaveSuffix(":table/" + table))
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(table))
	g.Expect(s.tablesAs(t, ctrltest.KeyB, "eu-west-1")).To(ContainElement(table))
	g.Expect(s.tableExists(t, table)).To(BeFalse(), "the operator's own account has no such table")

	// The application's ConfigMap, then a stream enabled later.
	outputs := s.eventuallyOutputs(t, nsA, "orders-table", func(g Gomega, data map[string]string) {
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputTableName, table))
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputTableArn, readyA.Status.TableArn))
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputRegion, "us-east-1"))
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputAccountID, "111111111111"))
		g.Expect(data).To(HaveKey(dynamodb.OutputEndpoint))
		g.Expect(data).NotTo(HaveKey(dynamodb.OutputStreamArn))
	})
	g.Expect(outputs.OwnerReferences).To(ContainElement(And(
		HaveField("Kind", "DynamoDBTable"), HaveField("UID", readyA.UID), HaveField("Controller", HaveValue(BeTrue())))),
		"the garbage collector removes the ConfigMap with the object")
	s.update(t, a, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_IMAGE"}
	})
	streamed := s.EventuallyReady(t, a)
	g.Expect(streamed.Status.LatestStreamArn).NotTo(BeEmpty())
	s.eventuallyOutputs(t, nsA, "orders-table", func(g Gomega, data map[string]string) {
		g.Expect(data).To(HaveKeyWithValue(dynamodb.OutputStreamArn, streamed.Status.LatestStreamArn))
	})
	g.Expect(s.Client.Get(ctx, client.ObjectKey{Namespace: nsA, Name: "orders-table"}, &corev1.ConfigMap{})).To(Succeed())
}

// Tether never writes into a ConfigMap it did not create: one that exists
// under the outputs' name is left alone (Ready=False OutputsNotWritten),
// and so is one someone put in place of Tether's (the patch carries the UID
// Tether recorded as a precondition).
func TestDynamoDBTableOutputsNeverOverwriteAForeignConfigMap(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: ctrltest.TableName("app-config")},
		Data: map[string]string{"TABLE_NAME": "mine"}}
	g.Expect(s.Client.Create(ctx, foreign)).To(Succeed())
	taken := ctrltest.NewTable("default", ctrltest.TableName("taken"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: foreign.Name}
	})
	s.Create(t, taken)
	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, taken), "Ready") }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/OutputsNotWritten"))
	g.Expect(conditionMessage(s.Get(g, taken), "Ready")).To(ContainSubstring("was not created by Tether"))
	g.Expect(s.configMapData(t, "default", foreign.Name)).To(Equal(map[string]string{"TABLE_NAME": "mine"}))

	// Tether's own ConfigMap is replaced behind its back.
	own := ctrltest.NewTable("default", ctrltest.TableName("own"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: ctrltest.TableName("own-outputs")}
	})
	s.Create(t, own)
	s.EventuallyReady(t, own)
	s.eventuallyOutputs(t, "default", own.Spec.WriteOutputsTo.Name, func(g Gomega, data map[string]string) {
		g.Expect(data).To(HaveKey(dynamodb.OutputTableArn))
	})
	g.Expect(s.Client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: own.Spec.WriteOutputsTo.Name}})).To(Succeed())
	impostor := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: own.Spec.WriteOutputsTo.Name},
		Data: map[string]string{"TABLE_NAME": "impostor"}}
	g.Expect(s.Client.Create(ctx, impostor)).To(Succeed())
	s.update(t, own, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	})
	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, own), "Ready") }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/OutputsNotWritten"))
	g.Expect(conditionMessage(s.Get(g, own), "Ready")).To(ContainSubstring("replaced by one Tether did not create"))
	g.Expect(s.configMapData(t, "default", impostor.Name)).To(Equal(map[string]string{"TABLE_NAME": "impostor"}))
}

// A namespace its account does not admit: a clear condition and no AWS
// call; admitting it (a label the selector matches) wakes the table at
// once, without waiting for a resync. Deleting the AWSAccount leaves its
// tables untouched, with a condition; re-creating it resumes.
func TestDynamoDBTableAccountAdmissionAndDeletion(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	ns, acct := ctrltest.TableName("team-c"), ctrltest.TableName("account-c")
	s.createNamespace(t, ns, nil, nil)
	account := s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tether-tenant": ns}}
	})
	obj := ctrltest.NewTable(ns, "orders", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("admitted")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
	})
	// The AWSAccount controller assumes the role once to report Ready;
	// count from after that.
	g.Eventually(func(g Gomega) {
		var a awsv1alpha1.AWSAccount
		g.Expect(s.Client.Get(ctx, client.ObjectKeyFromObject(account), &a)).To(Succeed())
		g.Expect(meta.FindStatusCondition(a.Status.Conditions, commonv1alpha1.Ready)).NotTo(BeNil())
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	stsBefore := len(s.STS.Calls())
	s.Create(t, obj)
	refused := s.eventuallySynced(t, obj, "False/AccountNotAllowed")
	g.Expect(conditionMessage(refused, "Synced")).To(ContainSubstring("does not admit namespace " + ns))
	g.Consistently(func() int { return len(s.Proxy.CallsFor(obj.Spec.TableName)) }, "2s", ctrltest.DDBPoll).Should(BeZero())
	g.Expect(len(s.STS.Calls())).To(Equal(stsBefore), "no AssumeRole for a namespace the account does not admit")

	nsObj := &corev1.Namespace{}
	g.Expect(s.Client.Get(ctx, client.ObjectKey{Name: ns}, nsObj)).To(Succeed())
	nsObj.Labels = map[string]string{"tether-tenant": ns}
	g.Expect(s.Client.Update(ctx, nsObj)).To(Succeed())
	s.EventuallyReady(t, obj) // well before the 5-minute recheck: the Namespace watch woke it
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(obj.Spec.TableName))

	g.Expect(s.Client.Delete(ctx, account)).To(Succeed())
	gone := s.eventuallySynced(t, obj, "False/AccountNotFound")
	g.Expect(conditionMessage(gone, "Synced")).To(ContainSubstring(acct))
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(obj.Spec.TableName), "nothing deleted")
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{ns}
	})
	s.EventuallyReady(t, obj)
}

func (s *ddbSuite) createNamespace(t *testing.T, name string, labels, annotations map[string]string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}}
	if err := s.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
}

// tablesAs lists DynamoDB Local's tables as one access key id in one
// region: one account's view, every page (ListTables answers at most 100
// names a page, and other tests leave more than that in the account).
func (s *ddbSuite) tablesAs(t *testing.T, key, region string) []string {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	db := awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(s.Local) })
	var names []string
	pages := awsdynamodb.NewListTablesPaginator(db, &awsdynamodb.ListTablesInput{})
	for pages.HasMorePages() {
		out, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, out.TableNames...)
	}
	return names
}

func (s *ddbSuite) configMapData(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := s.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

func (s *ddbSuite) eventuallyOutputs(t *testing.T, ns, name string, check func(Gomega, map[string]string)) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	NewWithT(t).Eventually(func(g Gomega) {
		err := s.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm)
		g.Expect(apierrors.IsNotFound(err)).To(BeFalse(), "ConfigMap %s/%s not written", ns, name)
		g.Expect(err).NotTo(HaveOccurred())
		check(g, cm.Data)
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
	return cm
}

package awstest

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
)

// Issue 15's newer features through the real reconciler, API server and
// SDK clients, in an account of issue 14. MODEL: global table replicas and
// Application Auto Scaling are answered by internal/ddbgap (AWS's documented
// rules; DynamoDB Local lacks both), STS by internal/ststest; the table
// itself is DynamoDB Local's. A PROVISIONED global table, autoscaled first
// as AWS requires, becomes Ready with its replica ACTIVE; what Tether
// manages is kept in a status the API server stores (so it survives a
// restart); deleting the object removes the replica, then the table.
func TestDynamoDBTableGlobalAndAutoscaledInAnAccountOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	gap := ddbgap.New(s.Local, ddbgap.Options{})
	url, err := gap.Listen()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = gap.Close() })
	ns, acct := ctrltest.TableName("team-global"), ctrltest.TableName("account-global")
	s.createNamespace(t, ns, nil, nil)
	s.CreateAccount(t, acct, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{ns}
		a.Spec.Endpoint = url
	})
	policy := &awsv1alpha1.ScalingPolicy{MinCapacity: 5, MaxCapacity: 50, TargetUtilization: 70}
	obj := ctrltest.NewTable(ns, "sessions", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("sessions")
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: acct}
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = ddbCapacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: policy, Write: policy}
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "eu-west-1"}}
	})
	s.Create(t, obj)
	ready := s.EventuallyReady(t, obj)
	g.Expect(ready.Status.UnsupportedFeatures).To(BeEmpty())
	g.Expect(ready.Status.Replicas).To(ConsistOf(And(HaveField("RegionName", "eu-west-1"), HaveField("ReplicaStatus", "ACTIVE"))))
	g.Expect(ready.Status.ManagedReplicaRegions).To(Equal([]string{"eu-west-1"}))
	g.Expect(ready.Status.ManagedScalableTargets).To(Equal([]string{"table/read", "table/write"}))
	g.Expect(ready.Status.AccountID).To(Equal("111111111111"))
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).To(ContainElement(obj.Spec.TableName))
	g.Expect(s.tableExists(t, obj.Spec.TableName)).To(BeFalse(), "the operator's own account has no such table")

	g.Expect(s.Client.Delete(context.Background(), obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(s.tablesAs(t, ctrltest.KeyA, "us-east-1")).NotTo(ContainElement(obj.Spec.TableName),
		"the table is deleted (the model refuses DeleteTable while a replica exists, so the replica went first)")
}

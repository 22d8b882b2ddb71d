package awstest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// MODEL (DynamoDB Local has no global tables and answers "Nothing to
// update" to a disassociation): a global table with two replicas Tether
// added declares its own disassociation protection off, and AWS's answer
// shows in the status. The spec drops one replica and keeps it as a table
// of its own: the Disassociate goes to that replica's Region, where its
// own protection (on by default) makes AWS refuse; the refusal is named in
// the Ready condition and neither sent again nor turned into a delete.
// Once the owner switched that protection off in the replica's Region and
// the object changed, one more Disassociate: the table no longer lists the
// replica, which stays a table of its own there, shown in
// status.disassociatedReplicaRegions. The other replica, dropped without
// keep, is deleted as before; deleting the object deletes the table and
// leaves the former replica.
func TestDynamoDBTableReplicaDisassociationOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-disassoc", ddbgap.Options{})
	const kept, dropped = "eu-west-1", "ap-south-1"
	obj := w.table("disassoc", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: dropped}, {RegionName: kept}}
		o.Spec.DisassociateReplicas = []awsv1alpha1.ReplicaDisassociation{{RegionName: kept}}
		o.Spec.DisassociationProtectionEnabled = aws.Bool(false)
	})
	s.Create(t, obj)
	ready := s.EventuallyReady(t, obj)
	g.Expect(ready.Status.DisassociationProtectionEnabled).To(Equal(aws.Bool(false)), "the table's own protection, as AWS reports it")
	g.Expect(ready.Status.AddedReplicaRegions).To(Equal([]string{dropped, kept}))
	g.Expect(ready.Spec.DisassociateReplicas[0].DisassociationMode).To(Equal(awsv1alpha1.DisassociationModeWaitForReplication), "AWS's one mode, defaulted")

	ctx := context.Background()
	name := aws.String(obj.Spec.TableName)
	inKept := awsdynamodb.New(w.raw.Options(), func(o *awsdynamodb.Options) { o.Region = kept })
	replicas := func(g Gomega) []string {
		out, err := w.raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
		g.Expect(err).NotTo(HaveOccurred())
		var regions []string
		for _, r := range out.Table.Replicas {
			regions = append(regions, aws.ToString(r.RegionName))
		}
		return regions
	}
	disassociations := func() int { return w.gap.Calls(ddbgap.CallDisassociate) }
	g.Expect(aws.ToBool(func() *types.TableDescription {
		out, err := w.raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}().DisassociationProtectionEnabled)).To(BeFalse(), "Tether switched the table's protection off")

	// Dropped with keep, the replica's own protection on: refused, named,
	// not sent again, not deleted.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: dropped}} })
	var refused *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		refused = s.Get(g, obj)
		return ctrltest.Condition(refused, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/" + plan.ReasonDisassociationRefused))
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Ready").Message).To(
		ContainSubstring("disassociation protection is enabled for the replica"), "AWS's words")
	g.Consistently(disassociations, "3s", ctrltest.DDBPoll).Should(Equal(1), "one Disassociate for the spec as it is, not one per look")
	g.Expect(replicas(g)).To(ConsistOf(dropped, kept), "refused, and not deleted instead")
	g.Expect(refused.Status.DisassociatedReplicaRegions).To(BeEmpty())

	// The owner switches the replica's protection off in its Region; the
	// object's change is the next try.
	_, err := inKept.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: name, DisassociationProtectionEnabled: aws.Bool(false)})
	g.Expect(err).NotTo(HaveOccurred())
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{"example.com/retry": "protection off in " + kept}
	})
	g.Eventually(func(g Gomega) []string {
		return s.Get(g, obj).Status.DisassociatedReplicaRegions
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal([]string{kept}))
	done := s.EventuallyReady(t, obj)
	g.Expect(disassociations()).To(Equal(2), "one more, after the change")
	g.Expect(replicas(g)).To(ConsistOf(dropped))
	g.Expect(done.Status.AddedReplicaRegions).To(Equal([]string{dropped}), "the former replica is no longer Tether's")
	own, err := inKept.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
	g.Expect(err).NotTo(HaveOccurred(), "the former replica is a table of its own in %s", kept)
	g.Expect(own.Table.TableStatus).To(Equal(types.TableStatusActive))
	g.Expect(own.Table.Replicas).To(BeEmpty())

	// Dropped without keep: deleted, as before (the protection goes with
	// the last replica: the CRD wants replicas for it).
	deletesBefore := w.gap.Calls("UpdateTable")
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Replicas, o.Spec.DisassociationProtectionEnabled = nil, nil
	})
	g.Eventually(replicas, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeEmpty())
	s.EventuallyReady(t, obj)
	g.Expect(w.gap.Calls("UpdateTable")).To(BeNumerically(">", deletesBefore))
	g.Expect(disassociations()).To(Equal(2), "a replica the spec does not keep is deleted, not disassociated")
	_, err = awsdynamodb.New(w.raw.Options(), func(o *awsdynamodb.Options) { o.Region = dropped }).
		DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
	g.Expect(err).To(HaveOccurred(), "no table is left in %s", dropped)

	g.Expect(s.Client.Delete(ctx, obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
	_, err = w.raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
	g.Expect(err).To(HaveOccurred(), "the table is deleted")
	_, err = inKept.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
	g.Expect(err).NotTo(HaveOccurred(), "the former replica is not the object's: it stays")
}

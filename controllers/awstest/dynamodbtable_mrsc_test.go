package awstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// mrscTransition is how long the model takes to make the members of a
// strongly consistent global table ACTIVE (and leaves them out of
// DescribeTable for its first third): several of the adapter's looks
// (TransitionPoll, 500 ms), so that a resend, or Ready before every member
// is ACTIVE, would be seen.
const mrscTransition = 3 * time.Second

// strongTable is a STRONG global table with the replicas and, when not
// "", the witness.
func strongTable(witness string, replicas ...string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.MultiRegionConsistency = awsv1alpha1.MultiRegionConsistencyStrong
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		for _, r := range replicas {
			o.Spec.Replicas = append(o.Spec.Replicas, awsv1alpha1.Replica{RegionName: r})
		}
		if witness != "" {
			o.Spec.GlobalTableWitness = &awsv1alpha1.GlobalTableWitness{RegionName: witness}
		}
	}
}

// members is the status's replicas and witnesses, "region:STATUS" sorted.
func members(o *awsv1alpha1.DynamoDBTable) string {
	var out []string
	for _, r := range o.Status.Replicas {
		out = append(out, r.RegionName+":"+r.ReplicaStatus)
	}
	for _, w := range o.Status.GlobalTableWitnesses {
		out = append(out, "witness "+w.RegionName+":"+w.WitnessStatus)
	}
	return strings.Join(out, " ")
}

// MODEL (DynamoDB Local has no multi-Region strong consistency: it answers
// "Nothing to update"; internal/ddbgap/mrsc.go models AWS's rules, each
// cited there). A STRONG global table with two replicas is made as AWS
// allows only: CreateTable without replicas, then ONE UpdateTable with the
// consistency and both replicas, not sent again while AWS does not list
// them yet; it is not Ready until every replica is ACTIVE. The same with a
// replica and a witness. A change AWS would refuse (another witness) is
// refused by the API server. REPLICATION_NOT_AUTHORIZED is a condition
// saying what to fix, and no CreateTable or DeleteTable follows it.
// Deleting the object removes every replica and the witness in one call,
// then the table; the spec dropping every replica and the consistency is
// that one call too, and the table stays, single-Region.
func TestDynamoDBTableStrongGlobalTableOnTheModel(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-mrsc", ddbgap.Options{Transition: mrscTransition})
	strongCalls := func() int { return w.gap.Calls(ddbgap.CallStrong) }

	// Looked at every 2 s, to see what AWS reports later by itself.
	obj := w.table("mrsc-two", strongTable("", "us-east-2", "us-west-2"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "2s"}
	})
	// The members are held where they are (CREATING) until the test saw
	// the table made and not Ready: on AWS that lasts a minute, here it
	// would race one Transition.
	release := w.gap.HoldReplicas()
	defer release()
	s.Create(t, obj)
	// Made, not yet listed or not yet ACTIVE: not Ready, nothing sent again.
	var making *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		making = s.Get(g, obj)
		return making.Status.MultiRegionConsistency
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("STRONG"))
	g.Consistently(func(g Gomega) string {
		making = s.Get(g, obj)
		return ctrltest.Condition(making, "Ready")
	}, mrscTransition+time.Second, ctrltest.DDBPoll).ShouldNot(HavePrefix("True"), func() string { return "members: " + members(making) })
	release()
	ready := s.EventuallyReady(t, obj)
	g.Expect(members(ready)).To(Equal("us-east-2:ACTIVE us-west-2:ACTIVE"))
	g.Expect(ready.Status.AddedReplicaRegions).To(Equal([]string{"us-east-2", "us-west-2"}))
	g.Expect(w.gap.Calls("CreateTable")).To(Equal(1))
	g.Consistently(strongCalls, 2*time.Second, ctrltest.DDBPoll).Should(Equal(1), "one UpdateTable made the global table")

	// A replica and a witness.
	paired := w.table("mrsc-witness", strongTable("us-west-2", "us-east-2"))
	s.Create(t, paired)
	ready = s.EventuallyReady(t, paired)
	g.Expect(members(ready)).To(Equal("us-east-2:ACTIVE witness us-west-2:ACTIVE"))
	g.Expect(strongCalls()).To(Equal(2))

	// Frozen: the API server refuses another witness.
	moved := s.Get(g, paired)
	moved.Spec.GlobalTableWitness.RegionName = "eu-west-1"
	err := s.Client.Update(context.Background(), moved)
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(ContainSubstring("a multiRegionConsistency STRONG global table is frozen"))

	// Replication not authorized: a condition, no CreateTable or DeleteTable.
	creates, deletes := w.gap.Calls("CreateTable"), w.gap.Calls("DeleteTable")
	w.gap.DenyReplication(obj.Spec.TableName)
	var denied *awsv1alpha1.DynamoDBTable
	g.Eventually(func(g Gomega) string {
		denied = s.Get(g, obj)
		return ctrltest.Condition(denied, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/ReplicationNotAuthorized"))
	msg := meta.FindStatusCondition(denied.Status.Conditions, "Ready").Message
	g.Expect(msg).To(ContainSubstring("denies DynamoDB's service-linked role"))
	g.Expect(msg).To(ContainSubstring("Tether neither re-creates nor deletes anything"))
	g.Consistently(func() [3]int { return [3]int{w.gap.Calls("CreateTable"), w.gap.Calls("DeleteTable"), strongCalls()} },
		5*time.Second, ctrltest.DDBPoll).Should(Equal([3]int{creates, deletes, 2}))
	w.gap.AllowReplication(obj.Spec.TableName)
	// Tether looks again a minute after a denial (inaccessibleDelay), as
	// long as the test's wait: a change to the object is the user's way to
	// have it look at once.
	s.nudge(t, obj)
	s.EventuallyReady(t, obj)

	// Deleted: every replica and the witness in one call, then the table.
	g.Expect(s.Client.Delete(context.Background(), paired)).To(Succeed())
	s.eventuallyGone(t, paired)
	g.Expect(strongCalls()).To(Equal(3), "the one way out, one call")
	g.Expect(w.gap.Calls("DeleteTable")).To(BeNumerically(">", deletes))

	// The one way out, by the spec: every replica and the consistency
	// removed together; one call, and a single-Region table is Ready.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.MultiRegionConsistency, o.Spec.Replicas = "", nil
	})
	g.Eventually(func(g Gomega) string {
		o := s.Get(g, obj)
		return o.Status.MultiRegionConsistency + "|" + members(o) + "|" + ctrltest.Condition(o, "Ready")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("||True/Available"))
	g.Expect(strongCalls()).To(Equal(4))
	g.Expect(w.gap.Calls("CreateTable")).To(Equal(creates), "the table stays: no re-create")
}

// MODEL: Time to Live turned on behind Tether's back (the spec leaves it
// alone) keeps the table from becoming STRONG, as AWS supports no Time to
// Live on an MRSC global table (developerguide
// V2globaltables_HowItWorks.html; modelled in internal/ddbgap/mrsc.go).
// Tether sends the one call, names the refusal with its words, and sends
// nothing again until the spec changes.
func TestDynamoDBTableStrongRefusedForTimeToLive(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	w := s.modelWorld(t, "team-mrsc-ttl", ddbgap.Options{Transition: mrscTransition})
	obj := w.table("mrsc-ttl", func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	_, err := w.raw.UpdateTimeToLive(context.Background(), &awsdynamodb.UpdateTimeToLiveInput{TableName: aws.String(obj.Spec.TableName),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
	g.Expect(err).NotTo(HaveOccurred())

	s.update(t, obj, strongTable("", "us-east-2", "us-west-2"))
	refused := s.eventuallySynced(t, obj, "False/"+plan.ReasonStrongRefused)
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(ContainSubstring("Time to Live is not supported"))
	g.Expect(refused.Status.MultiRegionConsistency).To(BeEmpty())
	g.Consistently(func() int { return w.gap.Calls(ddbgap.CallStrong) }, 3*time.Second, ctrltest.DDBPoll).Should(Equal(1), "sent once")
}

// REAL PEER (DynamoDB Local itself): it has no multi-Region strong
// consistency and answers "Nothing to update" to the one call that makes
// a STRONG global table. Tether says the endpoint does not support it
// (UnsupportedByEndpoint), is never Ready, and does not send it again; nor
// is a STRONG table Ready on it once it is known to lack replicas, which
// an eventually consistent table there goes without.
func TestDynamoDBTableStrongGlobalTableUnsupportedOnDynamoDBLocal(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	s.EnsureNamespace(t, "team-mrsc-local")
	local := ctrltest.NewTable("team-mrsc-local", ctrltest.TableName("mrsc-local"), strongTable("us-west-2", "us-east-2"))
	s.Create(t, local)
	refused := s.eventuallySynced(t, local, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support multi-Region strong consistency"))
	g.Expect(ctrltest.Condition(refused, "Ready")).NotTo(HavePrefix("True"))
	g.Consistently(func(g Gomega) string { return ctrltest.Condition(s.Get(g, local), "Ready") }, 2*time.Second, ctrltest.DDBPoll).
		ShouldNot(HavePrefix("True"))
	g.Expect(s.describe(g, local.Name).Table.MultiRegionConsistency).To(BeEmpty(), "DynamoDB Local ignored it")

	// Once the endpoint is known to lack replicas (an eventually
	// consistent global table's replica was refused there, and left out),
	// a STRONG table is still not left without them: not Ready either.
	eventual := ctrltest.NewTable("team-mrsc-local", ctrltest.TableName("mrec-local"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "us-east-2"}}
	})
	s.Create(t, eventual)
	g.Expect(s.EventuallyReady(t, eventual).Status.UnsupportedFeatures).To(ContainElement("replicas"))
	later := ctrltest.NewTable("team-mrsc-local", ctrltest.TableName("mrsc-later"), strongTable("", "us-east-2", "us-west-2"))
	s.Create(t, later)
	refused = s.eventuallySynced(t, later, "False/UnsupportedByEndpoint")
	g.Expect(meta.FindStatusCondition(refused.Status.Conditions, "Synced").Message).To(
		ContainSubstring("does not support multi-Region strong consistency"))
	g.Expect(ctrltest.Condition(refused, "Ready")).NotTo(HavePrefix("True"))
}

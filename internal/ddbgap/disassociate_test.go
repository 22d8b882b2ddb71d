package ddbgap_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// Disassociation, with AWS's own SDK: protection on by default and shown
// only on a global table, a protection change alone in its call and sent
// to the replica's Region, a Disassociate refused while the replica is
// protected, beside another change, with another Region's name or without
// WAIT_FOR_REPLICATION, and once accepted in the replica's Region: the
// replica leaves the global table's list and stays a table of its own
// there, while the table itself is untouched.
func TestModelDisassociation(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{})
	ctx := context.Background()
	g := NewWithT(t)
	const table, replica = "disassoc-a", "eu-west-1"
	w.table(table, types.BillingModePayPerRequest, true)
	there := dynamodb.New(w.ddb.Options(), func(o *dynamodb.Options) { o.Region = replica })

	describe := func(c *dynamodb.Client) *types.TableDescription {
		t.Helper()
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}
	g.Expect(describe(w.ddb).DisassociationProtectionEnabled).To(BeNil(), "a regional table has no disassociation protection")
	_, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DisassociationProtectionEnabled: aws.Bool(false)})
	w.expect(err, "ValidationException")

	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), ReplicaUpdates: addReplica(replica)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() types.TableStatus { return describe(w.ddb).TableStatus }, 5*time.Second, 50*time.Millisecond).Should(Equal(types.TableStatusActive))
	g.Expect(aws.ToBool(describe(w.ddb).DisassociationProtectionEnabled)).To(BeTrue(), "on by default")

	disassociate := func(region string, mode types.DisassociationMode, extra func(*dynamodb.UpdateTableInput)) error {
		in := &dynamodb.UpdateTableInput{TableName: aws.String(table), ReplicaUpdates: []types.ReplicationGroupUpdate{{
			Disassociate: &types.DisassociateReplicationGroupMemberAction{RegionName: aws.String(region), DisassociationMode: mode}}}}
		if extra != nil {
			extra(in)
		}
		_, err := there.UpdateTable(ctx, in)
		return err
	}
	w.expect(disassociate(replica, types.DisassociationModeWaitForReplication, nil), "ValidationException") // protected
	_, err = there.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DisassociationProtectionEnabled: aws.Bool(false),
		DeletionProtectionEnabled: aws.Bool(true)})
	w.expect(err, "ValidationException") // protection with another change
	_, err = there.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DisassociationProtectionEnabled: aws.Bool(false)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(aws.ToBool(describe(w.ddb).DisassociationProtectionEnabled)).To(BeTrue(), "the replica's protection is its own, not the table's")

	w.expect(disassociate(replica, "IMMEDIATE", nil), "ValidationException")                                    // WAIT_FOR_REPLICATION is the only mode
	w.expect(disassociate("us-east-1", types.DisassociationModeWaitForReplication, nil), "ValidationException") // not the Region called
	w.expect(disassociate(replica, types.DisassociationModeWaitForReplication, func(in *dynamodb.UpdateTableInput) {
		in.ReplicaUpdates = append(in.ReplicaUpdates, addReplica("ap-south-1")...)
	}), "ValidationException")
	w.expect(disassociate(replica, types.DisassociationModeWaitForReplication, func(in *dynamodb.UpdateTableInput) {
		in.DeletionProtectionEnabled = aws.Bool(true)
	}), "ValidationException")
	g.Expect(describe(w.ddb).Replicas).To(HaveLen(1), "no refused call started anything")

	g.Expect(w.gap.Calls(ddbgap.CallDisassociate)).To(Equal(5), "each refused Disassociate counted once (the SDK retries no ValidationException); protection changes are not counted")
	g.Expect(disassociate(replica, types.DisassociationModeWaitForReplication, nil)).To(Succeed())
	g.Eventually(func() []types.ReplicaDescription { return describe(w.ddb).Replicas }, 5*time.Second, 50*time.Millisecond).Should(BeEmpty())
	g.Expect(describe(w.ddb).TableStatus).To(Equal(types.TableStatusActive))
	own := describe(there)
	g.Expect(own.TableStatus).To(Equal(types.TableStatusActive), "the former replica is a table of its own in its Region")
	g.Expect(own.Replicas).To(BeEmpty())
	g.Expect(own.KeySchema).To(HaveLen(1))
}

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

func witness(create bool, region string) []types.GlobalTableWitnessGroupUpdate {
	if create {
		return []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(region)}}}
	}
	return []types.GlobalTableWitnessGroupUpdate{{Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String(region)}}}
}

func deleteReplica(region string) types.ReplicationGroupUpdate {
	return types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(region)}}
}

// MRSC, with AWS's own SDK: the refusals of ACK's probes
// (aws-controllers-k8s/dynamodb-controller docs/api-quirks/table-global-tables.md)
// each answered ValidationException and nothing started; then one call
// with STRONG, a replica and a witness is accepted, DescribeTable leaves
// both out for the first moments (UPDATING), then lists them ACTIVE with
// MultiRegionConsistency STRONG; the table is frozen (a replica added, a
// replica deleted without the witness, the consistency changed: refused);
// the one way out (every replica and the witness) leaves a single-Region
// table; a denied replication shows REPLICATION_NOT_AUTHORIZED.
func TestModelStrongConsistency(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{})
	ctx := context.Background()
	g := NewWithT(t)
	const table = "mrsc-a"
	w.table(table, types.BillingModePayPerRequest, false)
	describe := func() *types.TableDescription {
		t.Helper()
		out, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}
	update := func(f func(*dynamodb.UpdateTableInput)) error {
		in := &dynamodb.UpdateTableInput{TableName: aws.String(table)}
		f(in)
		_, err := w.ddb.UpdateTable(ctx, in)
		return err
	}
	strongWith := func(replicas []string, witnessIn string) func(*dynamodb.UpdateTableInput) {
		return func(in *dynamodb.UpdateTableInput) {
			in.MultiRegionConsistency = types.MultiRegionConsistencyStrong
			for _, r := range replicas {
				in.ReplicaUpdates = append(in.ReplicaUpdates, addReplica(r)...)
			}
			if witnessIn != "" {
				in.GlobalTableWitnessUpdates = witness(true, witnessIn)
			}
		}
	}
	for _, c := range []struct {
		name string
		f    func(*dynamodb.UpdateTableInput)
	}{
		{"one replica", strongWith([]string{"us-east-2"}, "")},
		{"three replicas", strongWith([]string{"us-east-2", "us-west-2", "eu-west-1"}, "")},
		{"two replicas and a witness", strongWith([]string{"us-east-2", "us-west-2"}, "eu-west-1")},
		{"a witness without STRONG", func(in *dynamodb.UpdateTableInput) {
			in.ReplicaUpdates, in.GlobalTableWitnessUpdates = addReplica("us-east-2"), witness(true, "us-west-2")
		}},
		{"a witness in the replica's Region", strongWith([]string{"us-east-2"}, "us-east-2")},
		{"a witness in the table's Region", strongWith([]string{"us-east-2"}, "us-east-1")},
		{"us-west-1", strongWith([]string{"us-east-2", "us-west-1"}, "")},
		{"another field beside it", func(in *dynamodb.UpdateTableInput) {
			strongWith([]string{"us-east-2", "us-west-2"}, "")(in)
			in.DeletionProtectionEnabled = aws.Bool(true)
		}},
	} {
		g.Expect(code(update(c.f))).To(Equal("ValidationException"), c.name)
	}
	g.Expect(describe().Replicas).To(BeEmpty(), "no refused call started anything")
	g.Expect(w.gap.Calls(ddbgap.CallStrong)).To(Equal(8))

	g.Expect(update(strongWith([]string{"us-east-2"}, "us-west-2"))).To(Succeed())
	early := describe()
	g.Expect(early.Replicas).To(BeEmpty(), "left out for the first moments")
	g.Expect(early.GlobalTableWitnesses).To(BeEmpty())
	g.Expect(early.TableStatus).To(Equal(types.TableStatusUpdating))
	g.Expect(early.MultiRegionConsistency).To(Equal(types.MultiRegionConsistencyStrong))
	g.Eventually(func(g Gomega) {
		d := describe()
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		g.Expect(d.Replicas).To(HaveLen(1))
		g.Expect(d.Replicas[0].ReplicaStatus).To(Equal(types.ReplicaStatusActive))
		g.Expect(d.GlobalTableWitnesses).To(HaveLen(1))
		g.Expect(d.GlobalTableWitnesses[0].WitnessStatus).To(Equal(types.WitnessStatusActive))
	}, 5*time.Second, 50*time.Millisecond).Should(Succeed())

	// Frozen.
	g.Expect(code(update(func(in *dynamodb.UpdateTableInput) { in.ReplicaUpdates = addReplica("eu-west-1") }))).To(Equal("ValidationException"))
	g.Expect(code(update(func(in *dynamodb.UpdateTableInput) {
		in.ReplicaUpdates = []types.ReplicationGroupUpdate{deleteReplica("us-east-2")}
	}))).To(Equal("ValidationException"), "a replica deleted without the witness")
	g.Expect(code(update(func(in *dynamodb.UpdateTableInput) { in.MultiRegionConsistency = types.MultiRegionConsistencyEventual }))).To(Equal("ValidationException"))
	_, err := w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	g.Expect(code(err)).To(Equal("ValidationException"), "no DeleteTable of a member")

	// Replication denied, then allowed again.
	w.gap.DenyReplication(table)
	d := describe()
	g.Expect(d.TableStatus).To(Equal(types.TableStatus("REPLICATION_NOT_AUTHORIZED")))
	g.Expect(d.Replicas[0].ReplicaStatus).To(Equal(types.ReplicaStatusReplicationNotAuthorized))
	w.gap.AllowReplication(table)
	g.Expect(describe().TableStatus).To(Equal(types.TableStatusActive))

	// The way out.
	g.Expect(update(func(in *dynamodb.UpdateTableInput) {
		in.ReplicaUpdates = []types.ReplicationGroupUpdate{deleteReplica("us-east-2")}
		in.GlobalTableWitnessUpdates = witness(false, "us-west-2")
	})).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := describe()
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		g.Expect(d.Replicas).To(BeEmpty())
		g.Expect(d.GlobalTableWitnesses).To(BeEmpty())
		g.Expect(d.MultiRegionConsistency).To(BeEmpty())
	}, 5*time.Second, 50*time.Millisecond).Should(Succeed())

	// A table with items cannot become STRONG.
	const full = "mrsc-full"
	w.table(full, types.BillingModePayPerRequest, false)
	_, err = w.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(full), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(full), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: append(addReplica("us-east-2"), addReplica("us-west-2")...)})
	g.Expect(code(err)).To(Equal("ValidationException"))
}

// A table with Time to Live on or a local secondary index is not made
// STRONG, and Time to Live is not turned on for a STRONG table: "Time to
// Live (TTL) is not supported for MRSC global tables" and "Local secondary
// indexes (LSIs) are not supported for MRSC global tables" (developerguide
// V2globaltables_HowItWorks.html). Each refusal starts nothing; with TTL
// off again the same call is accepted. Through AWS's own SDK, against
// DynamoDB Local's TTL and index descriptions.
func TestModelStrongRefusesTTLAndLocalIndexes(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{})
	ctx := context.Background()
	g := NewWithT(t)
	strong := func(table string) error {
		_, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
			ReplicaUpdates: append(addReplica("us-east-2"), addReplica("us-west-2")...)})
		return err
	}
	ttl := func(table string, on bool) error {
		_, err := w.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(on)}})
		return err
	}
	replicas := func(table string) []types.ReplicaDescription {
		out, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table.Replicas
	}

	const withTTL = "mrsc-ttl"
	w.table(withTTL, types.BillingModePayPerRequest, false)
	g.Expect(ttl(withTTL, true)).To(Succeed())
	g.Expect(code(strong(withTTL))).To(Equal("ValidationException"), "a table with Time to Live on")
	g.Expect(replicas(withTTL)).To(BeEmpty())
	g.Expect(ttl(withTTL, false)).To(Succeed())
	g.Expect(strong(withTTL)).To(Succeed(), "the same call once Time to Live is off")
	g.Expect(code(ttl(withTTL, true))).To(Equal("ValidationException"), "Time to Live turned on for a STRONG table")

	const withLSI = "mrsc-lsi"
	_, err := w.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(withLSI), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("at"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("by-at"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("at"), KeyType: types.KeyTypeRange}}}},
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(code(strong(withLSI))).To(Equal("ValidationException"), "a table with a local secondary index")
	g.Expect(replicas(withLSI)).To(BeEmpty())
}

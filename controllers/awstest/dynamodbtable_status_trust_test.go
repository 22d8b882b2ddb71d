package awstest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// Issue 39, items 5 and 7: a hostile tenant with rights in one namespace
// (it writes its DynamoDBTables, their status subresource included, and
// its ConfigMaps' neighbours are not its own) against the real reconciler,
// API server and SDK clients. MODEL: the AWSAccount's endpoint is
// internal/ddbgap with tagging (what DynamoDB Local lacks, as AWS has it:
// Tether's owner tag is on the tables it makes), STS is internal/ststest,
// the tables and their items are DynamoDB Local's. A counting proxy in
// front of the model says what reached AWS.

// hostile is one AWS account admitting a victim's and a tenant's
// namespace, neither of which may adopt tables.
type hostile struct {
	victimNS, tenantNS, account string
	// proxy counts what reached the model, by table.
	proxy *faultproxy.Proxy
	// db acts in the account behind Tether's back (someone else: the
	// platform team, Terraform, the console).
	db *awsdynamodb.Client
}

func (s *ddbSuite) hostileAccount(t *testing.T) *hostile {
	t.Helper()
	gap := ddbgap.New(s.Local, ddbgap.Options{Tagging: true})
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	proxy := ddbtest.FaultProxy(t, url, 39)
	h := &hostile{victimNS: ctrltest.TableName("victim"), tenantNS: ctrltest.TableName("tenant"), account: ctrltest.TableName("account-hostile"), proxy: proxy,
		db: rawAt(t, url, ctrltest.KeyA)}
	s.createNamespace(t, h.victimNS, nil, nil)
	s.createNamespace(t, h.tenantNS, nil, nil)
	s.CreateAccount(t, h.account, ctrltest.RoleA, func(a *awsv1alpha1.AWSAccount) {
		a.Spec.NamespaceSelector.Names = []string{h.victimNS, h.tenantNS}
		a.Spec.Endpoint = proxy.URL()
	})
	return h
}

// in puts an object in the hostile account, deleted with the object.
func (h *hostile) in(o *awsv1alpha1.DynamoDBTable) {
	o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: h.account}
	o.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
}

// writes are the calls that change a table that reached the model for it.
func (h *hostile) writes(table string) map[string]int {
	out := map[string]int{}
	for op, n := range h.proxy.CallsFor(table) {
		switch op {
		case "DescribeTable", "ListTagsOfResource", "DescribeContinuousBackups", "GetResourcePolicy", "DescribeTimeToLive", "DescribeBackup":
		default:
			out[op] = n
		}
	}
	return out
}

// foreignTable is a table someone else made in the account, with items.
func (h *hostile) foreignTable(t *testing.T, name string, items int, mutate ...func(*awsdynamodb.CreateTableInput)) *types.TableDescription {
	t.Helper()
	in := &awsdynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	for _, m := range mutate {
		m(in)
	}
	out, err := h.db.CreateTable(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	putItems(t, h.db, name, items)
	return out.TableDescription
}

func (h *hostile) items(g Gomega, table string) int32 {
	out, err := h.db.Scan(context.Background(), &awsdynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	g.Expect(err).NotTo(HaveOccurred())
	return out.Count
}

func (h *hostile) describe(g Gomega, table string) *types.TableDescription {
	out, err := h.db.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
	return out.Table
}

// patchStatus writes the object's status as the tenant may: one merge
// patch of the status subresource, no resourceVersion.
func (s *ddbSuite) patchStatus(t *testing.T, obj *awsv1alpha1.DynamoDBTable, status map[string]any) {
	t.Helper()
	NewWithT(t).Eventually(func() error {
		return s.Client.Status().Patch(context.Background(), obj.DeepCopy(), client.RawPatch(client.Merge.Type(), mustJSON(t, map[string]any{"status": status})))
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// nudge changes a user annotation: Tether looks at the object again, as
// after any change the tenant makes.
func (s *ddbSuite) nudge(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		if o.Annotations == nil {
			o.Annotations = map[string]string{}
		}
		o.Annotations["test.tether.dev/nudge"] = fmt.Sprint(time.Now().UnixNano())
	})
}

// Item 5: status.tableId is no proof of ownership. A tenant names a table
// someone else made (NotOwned), writes the live table's identity into its
// object's status and has Tether look again: still NotOwned, nothing sent
// to the table; deleting the object deletes nothing. Before, the one
// status patch made the table the object's, and the delete deleted it.
func TestDynamoDBTableStatusTableIDIsNoProofOfOwnership(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	h := s.hostileAccount(t)
	name := ctrltest.TableName("payments")
	live := h.foreignTable(t, name, 3)
	obj := ctrltest.NewTable(h.tenantNS, "claim", h.in, func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = name })
	s.Create(t, obj)
	s.eventuallySynced(t, obj, "False/NotOwned")

	s.patchStatus(t, obj, map[string]any{"tableId": dynamodb.TableIdentity(live), "tableArn": aws.ToString(live.TableArn),
		"account": h.account, "accountId": "111111111111", "region": "us-east-1"})
	s.nudge(t, obj)
	g.Consistently(func(g Gomega) string { return ctrltest.Condition(s.Get(g, obj), "Synced") }, "3s", ctrltest.DDBPoll).Should(Equal("False/NotOwned"))
	g.Expect(conditionMessage(s.Get(g, obj), "Synced")).To(ContainSubstring("the status is no proof of ownership"))
	g.Expect(s.Client.Delete(context.Background(), obj.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, obj)
	g.Expect(h.writes(name)).To(BeEmpty(), "calls that change the foreign table reached AWS")
	g.Expect(h.items(g, name)).To(BeEquivalentTo(3), "the foreign table was deleted")
}

// Item 5: status.outputs.uid is no proof that a ConfigMap is Tether's. A
// tenant names another ConfigMap of its namespace as its outputs (refused:
// it exists and is not Tether's), then writes that ConfigMap's UID into
// its status: the ConfigMap is still not written. Before, the patch with
// the UID as its precondition overwrote its keys.
func TestDynamoDBTableStatusOutputsUIDWritesNoForeignConfigMap(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	ns := ctrltest.TableName("outputs-tenant")
	s.createNamespace(t, ns, nil, nil)
	theirs := map[string]string{"TABLE_NAME": "billing", "DATABASE_URL": "postgres://billing"}
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "billing-config"}, Data: theirs}
	g.Expect(s.Client.Create(ctx, foreign)).To(Succeed())
	obj := ctrltest.NewTable(ns, ctrltest.TableName("outputs"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.WriteOutputsTo = &awsv1alpha1.OutputsReference{Name: foreign.Name}
	})
	s.Create(t, obj)
	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, obj), "Ready") }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/OutputsNotWritten"))

	s.patchStatus(t, obj, map[string]any{"outputs": map[string]any{"name": foreign.Name, "uid": string(foreign.UID), "checksum": "forged"}})
	s.nudge(t, obj)
	g.Consistently(func() map[string]string { return s.configMapData(t, ns, foreign.Name) }, "3s", ctrltest.DDBPoll).Should(Equal(theirs),
		"Tether wrote into a ConfigMap it did not create")
	g.Expect(ctrltest.Condition(s.Get(g, obj), "Ready")).To(Equal("False/OutputsNotWritten"))
}

// Item 5: status.addedReplicaRegions is no proof that Tether added a
// replica. The tenant's own table gets a replica from someone else (a
// disaster-recovery copy); the tenant writes its Region into the status
// and deletes the object: the replica is not removed and the table not
// deleted (ForeignReplicas). Before, Tether removed the replica, then the
// table.
func TestDynamoDBTableStatusAddedReplicaRegionsRemovesNoForeignReplica(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	h := s.hostileAccount(t)
	obj := ctrltest.NewTable(h.tenantNS, "orders", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("orders")
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	name := obj.Spec.TableName
	_, err := h.db.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	replicas := func(g Gomega) []string {
		var out []string
		for _, r := range h.describe(g, name).Replicas {
			out = append(out, aws.ToString(r.RegionName)+"/"+string(r.ReplicaStatus))
		}
		return out
	}
	g.Eventually(replicas, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal([]string{"eu-west-1/ACTIVE"}))

	s.patchStatus(t, obj, map[string]any{"addedReplicaRegions": []string{"eu-west-1"}})
	before := h.writes(name)
	g.Expect(s.Client.Delete(ctx, obj.DeepCopy())).To(Succeed())
	g.Eventually(func(g Gomega) string { return ctrltest.Condition(s.Get(g, obj), "Synced") }, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal("False/ForeignReplicas"))
	g.Consistently(replicas, "2s", ctrltest.DDBPoll).Should(Equal([]string{"eu-west-1/ACTIVE"}), "the replica someone else added was removed")
	g.Expect(h.writes(name)).To(Equal(before), "calls that change the table reached AWS on delete")

	// Let go of it (the way the condition names) and clean up.
	s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
		o.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
	})
	s.eventuallyGone(t, obj)
}

// Item 5: the tether.dev/create-started note is anyone's to write. The
// platform team restores the tenant's own table into a new one outside
// Tether (a forensic copy); the tenant claims it with an object naming it,
// restored from that very source, with a create-started note from before:
// NotOwned, nothing sent to the copy, and deleting the object leaves it.
// Before, the note and the restore summary made it the object's.
func TestDynamoDBTableCreateStartedNoteClaimsNoRestoredTable(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	h := s.hostileAccount(t)
	source := ctrltest.NewTable(h.tenantNS, "ledger", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ledger")
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	})
	s.createOnModel(t, source)
	ready := s.EventuallyReady(t, source)
	putItems(t, h.db, source.Spec.TableName, 2)
	noted := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	copyName := ctrltest.TableName("ledger-forensics")
	_, err := h.db.RestoreTableToPointInTime(ctx, &awsdynamodb.RestoreTableToPointInTimeInput{SourceTableArn: aws.String(ready.Status.TableArn),
		TargetTableName: aws.String(copyName), UseLatestRestorableTime: aws.Bool(true)})
	g.Expect(err).NotTo(HaveOccurred())

	claim := ctrltest.NewTable(h.tenantNS, "claim", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = copyName
		o.Annotations = map[string]string{commonv1alpha1.AnnotationCreateStarted: noted}
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: ready.Status.TableArn, UseLatestRestorableTime: true}}
	})
	s.Create(t, claim)
	s.eventuallySynced(t, claim, "False/NotOwned")
	g.Consistently(func(g Gomega) string { return ctrltest.Condition(s.Get(g, claim), "Synced") }, "2s", ctrltest.DDBPoll).Should(Equal("False/NotOwned"))
	g.Expect(s.Client.Delete(ctx, claim.DeepCopy())).To(Succeed())
	s.eventuallyGone(t, claim)
	g.Expect(h.writes(copyName)).To(BeEmpty(), "calls that change the restored copy reached AWS")
	g.Expect(h.items(g, copyName)).To(BeEquivalentTo(2), "the restored copy was deleted")
}

// Item 5: another object's status is no proof that it holds a restore
// source. The tenant makes a paused object naming the victim's table and
// writes the victim table's identity and ARN into its status, then
// restores the victim's table into its own: RestoreNotAllowed, no restore
// sent, no copy made. Before, the forged status made the tenant's
// namespace the source's holder.
func TestDynamoDBTableHolderStatusGrantsNoRestoreSource(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	h := s.hostileAccount(t)
	victim := ctrltest.NewTable(h.victimNS, "payments", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("payments")
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	})
	s.createOnModel(t, victim)
	ready := s.EventuallyReady(t, victim)
	putItems(t, h.db, victim.Spec.TableName, 3)

	holder := ctrltest.NewTable(h.tenantNS, "decoy", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = victim.Spec.TableName
		o.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
	})
	s.Create(t, holder)
	s.patchStatus(t, holder, map[string]any{"tableId": ready.Status.TableID, "tableArn": ready.Status.TableArn,
		"account": h.account, "accountId": ready.Status.AccountID, "region": ready.Status.Region})
	stolen := ctrltest.NewTable(h.tenantNS, "stolen", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("stolen")
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: ready.Status.TableArn, UseLatestRestorableTime: true}}
	})
	s.createOnModel(t, stolen)
	s.eventuallySynced(t, stolen, "False/RestoreNotAllowed")
	g.Consistently(func() []string { return s.tablesAs(t, ctrltest.KeyA, "us-east-1") }, "2s", ctrltest.DDBPoll).ShouldNot(ContainElement(stolen.Spec.TableName),
		"a copy of the victim's table was made")
	g.Expect(h.writes(stolen.Spec.TableName)).To(BeEmpty(), "a restore reached AWS")
}

// Item 7: the resource-policy check reads every shape AWS may honour. A
// tenant publishes its table to another account with an account id as a
// JSON number (alone and in a list), lower-case element names, or the
// account's own digits in another partition; and restores from its own
// table named by an ARN of another Region (the table AWS would restore is
// that Region's, not the one checked). Each is refused, and no
// CreateTable, PutResourcePolicy or restore reaches AWS. Before, each
// passed.
func TestDynamoDBTablePoliciesAndRestoreSourcesAreReadAsAWSReadsThem(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	h := s.hostileAccount(t)
	for name, policy := range map[string]string{
		"number":    `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": 999999999999}, "Action": "dynamodb:*", "Resource": "*"}]}`,
		"list":      `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": ["111111111111", 999999999999]}, "Action": "dynamodb:*", "Resource": "*"}]}`,
		"lowercase": `{"Version": "2012-10-17", "statement": [{"effect": "Allow", "principal": {"aws": "arn:aws:iam::999999999999:root"}, "action": "dynamodb:*", "resource": "*"}]}`,
		"partition": `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws-cn:iam::111111111111:root"}, "Action": "dynamodb:*", "Resource": "*"}]}`,
	} {
		obj := ctrltest.NewTable(h.tenantNS, "published-"+name, h.in, func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.TableName = ctrltest.TableName("published-" + name)
			o.Spec.ResourcePolicy = &runtime.RawExtension{Raw: []byte(policy)}
		})
		s.createOnModel(t, obj)
		s.eventuallySynced(t, obj, "False/PolicyNotAllowed")
		g.Expect(h.writes(obj.Spec.TableName)).To(BeEmpty(), "%s: a table or policy reached AWS", name)
	}

	own := ctrltest.NewTable(h.tenantNS, "reports", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("reports")
		o.Spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: true}
	})
	s.createOnModel(t, own)
	s.EventuallyReady(t, own)
	elsewhere := ctrltest.NewTable(h.tenantNS, "reports-copy", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("reports-copy")
		o.Spec.RestoreFrom = &awsv1alpha1.RestoreSource{PointInTime: &awsv1alpha1.PointInTimeRestore{
			SourceTableArn: "arn:aws:dynamodb:eu-west-1:111111111111:table/" + own.Spec.TableName, UseLatestRestorableTime: true}}
	})
	s.createOnModel(t, elsewhere)
	refused := s.eventuallySynced(t, elsewhere, "False/RestoreNotAllowed")
	g.Expect(conditionMessage(refused, "Synced")).To(ContainSubstring("is not the ARN of table " + own.Spec.TableName))
	g.Consistently(func() map[string]int { return h.writes(elsewhere.Spec.TableName) }, "2s", ctrltest.DDBPoll).Should(BeEmpty(), "a restore reached AWS")
}

// status.managedReplicaRegions is no proof either that a replica is the
// object's to remove. Someone else adds a replica to the tenant's table;
// the tenant writes its Region into managedReplicaRegions, once with the
// spec asking to delete dropped replicas and once asking to disassociate
// them: neither is sent, the replica stays. Before, the status alone made
// Tether delete it.
func TestDynamoDBTableStatusManagedReplicaRegionsRemovesNoForeignReplica(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	h := s.hostileAccount(t)
	obj := ctrltest.NewTable(h.tenantNS, "ledger-dr", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ledger-dr")
		o.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	name := obj.Spec.TableName
	_, err := h.db.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	replicas := func(g Gomega) []string {
		var out []string
		for _, r := range h.describe(g, name).Replicas {
			out = append(out, aws.ToString(r.RegionName)+"/"+string(r.ReplicaStatus))
		}
		return out
	}
	g.Eventually(replicas, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal([]string{"eu-west-1/ACTIVE"}))

	before := h.writes(name)
	for _, keep := range []bool{false, true} {
		if keep {
			s.update(t, obj, func(o *awsv1alpha1.DynamoDBTable) {
				o.Spec.DisassociateReplicas = []awsv1alpha1.ReplicaDisassociation{{RegionName: "eu-west-1"}}
			})
		}
		s.patchStatus(t, obj, map[string]any{"managedReplicaRegions": []string{"eu-west-1"}})
		s.nudge(t, obj)
		g.Consistently(replicas, "2s", ctrltest.DDBPoll).Should(Equal([]string{"eu-west-1/ACTIVE"}), "a replica someone else added was removed (keep=%v)", keep)
		g.Expect(h.writes(name)).To(Equal(before), "calls that change the table reached AWS (keep=%v)", keep)
	}
}

// Issue 39, item 5 (the status lists of what Tether manages): someone else
// tags the tenant's table, streams it to Kinesis and attaches a resource
// policy; the tenant lists all three in its object's status as Tether's
// (managedTagKeys, managedKinesisStreamArn, resourcePolicyRevisionId), in a
// spec that names none of them, and has Tether look again. Nothing is
// removed: Tether removes only what its own record says the object's spec
// named or Tether put there (providers/dynamodb/named.go). Before, the
// status lists decided, and the tag, the destination and the policy went.
func TestDynamoDBTableStatusManagedListsRemoveNothingForeign(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx := context.Background()
	h := s.hostileAccount(t)
	obj := ctrltest.NewTable(h.tenantNS, "ledger-lists", h.in, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TableName = ctrltest.TableName("ledger-lists")
		o.Spec.Tags = map[string]string{"team": "ledger"}
	})
	s.Create(t, obj)
	s.EventuallyReady(t, obj)
	name := obj.Spec.TableName
	arn := aws.ToString(h.describe(g, name).TableArn)
	const stream = "arn:aws:kinesis:us-east-1:111122223333:stream/finance"
	_, err := h.db.TagResource(ctx, &awsdynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String("cost-center"), Value: aws.String("finance")}}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = h.db.EnableKinesisStreamingDestination(ctx, &awsdynamodb.EnableKinesisStreamingDestinationInput{
		TableName: aws.String(name), StreamArn: aws.String(stream)})
	g.Expect(err).NotTo(HaveOccurred())
	pol, err := h.db.PutResourcePolicy(ctx, &awsdynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`)})
	g.Expect(err).NotTo(HaveOccurred())
	removals := func() int {
		calls := h.proxy.CallsFor(name)
		return calls["UntagResource"] + calls["DisableKinesisStreamingDestination"] + calls["DeleteResourcePolicy"]
	}
	foreign := func(g Gomega) []string {
		var out []string
		tags, err := h.db.ListTagsOfResource(ctx, &awsdynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
		g.Expect(err).NotTo(HaveOccurred())
		for _, t := range tags.Tags {
			if aws.ToString(t.Key) == "cost-center" {
				out = append(out, "tag")
			}
		}
		k, err := h.db.DescribeKinesisStreamingDestination(ctx, &awsdynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(name)})
		g.Expect(err).NotTo(HaveOccurred())
		for _, d := range k.KinesisDataStreamDestinations {
			if d.DestinationStatus == types.DestinationStatusActive || d.DestinationStatus == types.DestinationStatusEnabling {
				out = append(out, "kinesis")
			}
		}
		if _, err := h.db.GetResourcePolicy(ctx, &awsdynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)}); err == nil {
			out = append(out, "policy")
		}
		return out
	}
	g.Eventually(foreign, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal([]string{"tag", "kinesis", "policy"}))

	s.patchStatus(t, obj, map[string]any{"managedTagKeys": []string{"cost-center", "team"}, "managedKinesisStreamArn": stream,
		"resourcePolicyRevisionId": aws.ToString(pol.RevisionId)})
	s.nudge(t, obj)
	g.Consistently(foreign, "3s", ctrltest.DDBPoll).Should(Equal([]string{"tag", "kinesis", "policy"}), "what someone else put on the table was removed")
	g.Expect(removals()).To(BeZero(), "removals reached AWS")
}

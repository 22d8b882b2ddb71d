package ddbgap_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/ddbtest"
)

// These tests check the model itself with AWS's own SDK (a client nobody
// here wrote): that it answers in shapes the SDK decodes, and that it
// enforces the rules Tether's tests on it rely on. Without them, a provider
// test passing on a lax model would prove nothing.

type world struct {
	t     *testing.T
	gap   *ddbgap.Server
	ddb   *dynamodb.Client
	scale *applicationautoscaling.Client
}

// One DynamoDB Local for the package; each test uses its own tables.
var (
	localOnce sync.Once
	local     *ddbtest.Server
	localErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	local.Stop()
	os.Exit(code)
}

func newWorld(t *testing.T) *world {
	return newWorldWith(t, ddbgap.Options{})
}

func newWorldWith(t *testing.T, opts ddbgap.Options) *world {
	t.Helper()
	localOnce.Do(func() { local, localErr = ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{}) })
	if localErr != nil {
		t.Fatal(localErr)
	}
	opts.Transition, opts.StaleReads = 500*time.Millisecond, 1
	gap := ddbgap.New(local.URL, opts)
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	ddbtest.UseEndpoint(t, url)
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ddb := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if opts.Pace != (ddbgap.Pace{}) {
			// The SDK retries ResourceInUse and LimitExceeded refusals:
			// the pace tests want each answer as the model gave it.
			o.RetryMaxAttempts = 1
		}
	})
	return &world{t: t, gap: gap, ddb: ddb,
		scale: applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) { o.BaseEndpoint = aws.String(url) })}
}

func code(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

func (w *world) table(name string, billing types.BillingMode, stream bool) {
	w.t.Helper()
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: billing,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if billing == types.BillingModeProvisioned {
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	}
	if stream {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	if _, err := w.ddb.CreateTable(context.Background(), in); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) expect(err error, want string) {
	w.t.Helper()
	if got := code(err); got != want {
		w.t.Fatalf("error %v (code %q), want %s", err, got, want)
	}
}

func addReplica(region string) []types.ReplicationGroupUpdate {
	return []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(region)}}}
}

// Replicas: refused without the stream, one action per call, no update
// while one is CREATING (the table is UPDATING), ACTIVE after the
// transition, and no DeleteTable while replicas exist.
func TestModelReplicaRules(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.table("nostream", types.BillingModePayPerRequest, false)
	_, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("nostream"), ReplicaUpdates: addReplica("eu-west-1")})
	w.expect(err, "ValidationException")

	w.table("global", types.BillingModePayPerRequest, true)
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("global"),
		ReplicaUpdates: append(addReplica("eu-west-1"), addReplica("us-west-2")...)})
	w.expect(err, "ValidationException")
	if _, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("global"), ReplicaUpdates: addReplica("eu-west-1")}); err != nil {
		t.Fatal(err)
	}
	d, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("global")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.TableStatus != types.TableStatusUpdating || len(d.Table.Replicas) != 1 || d.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusCreating {
		t.Fatalf("while adding: table %s, replicas %+v", d.Table.TableStatus, d.Table.Replicas)
	}
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("global"), ReplicaUpdates: addReplica("us-west-2")})
	w.expect(err, "ResourceInUseException")
	_, err = w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("global")})
	w.expect(err, "ResourceInUseException")
	time.Sleep(600 * time.Millisecond) // the model's transition, not synchronisation
	d, _ = w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("global")})
	if d.Table.TableStatus != types.TableStatusActive || d.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusActive ||
		aws.ToString(d.Table.GlobalTableVersion) != "2019.11.21" {
		t.Fatalf("after: table %s, replicas %+v", d.Table.TableStatus, d.Table.Replicas)
	}
	_, err = w.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("global")})
	w.expect(err, "ValidationException")

	// PROVISIONED: only with write autoscaling on the table.
	w.table("provisioned", types.BillingModeProvisioned, true)
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("provisioned"), ReplicaUpdates: addReplica("eu-west-1")})
	w.expect(err, "ValidationException")
	if _, err := w.scale.RegisterScalableTarget(ctx, &applicationautoscaling.RegisterScalableTargetInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
		ResourceId: aws.String("table/provisioned"), ScalableDimension: aastypes.ScalableDimensionDynamoDBTableWriteCapacityUnits,
		MinCapacity: aws.Int32(1), MaxCapacity: aws.Int32(10)}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("provisioned"), ReplicaUpdates: addReplica("eu-west-1")}); err != nil {
		t.Fatalf("with write autoscaling: %v", err)
	}
}

// On-demand limits only on PAY_PER_REQUEST, dropped by a switch to
// PROVISIONED; warm throughput only up.
func TestModelThroughputRules(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.table("limits", types.BillingModePayPerRequest, false)
	if _, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("limits"),
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}}); err != nil {
		t.Fatal(err)
	}
	d, _ := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("limits")})
	if d.Table.OnDemandThroughput == nil || aws.ToInt64(d.Table.OnDemandThroughput.MaxReadRequestUnits) != 100 {
		t.Fatalf("limits = %+v", d.Table.OnDemandThroughput)
	}
	if aws.ToInt64(d.Table.WarmThroughput.ReadUnitsPerSecond) != 12000 || aws.ToInt64(d.Table.WarmThroughput.WriteUnitsPerSecond) != 4000 {
		t.Fatalf("default warm throughput = %+v", d.Table.WarmThroughput)
	}
	_, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("limits"),
		WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(11000)}})
	w.expect(err, "ValidationException")
	if _, err := w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("limits"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}); err != nil {
		t.Fatal(err)
	}
	d, _ = w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("limits")})
	if d.Table.OnDemandThroughput != nil {
		t.Fatalf("limits survived the switch: %+v", d.Table.OnDemandThroughput)
	}
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("limits"),
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}})
	w.expect(err, "ValidationException")
}

// Resource policies: revisions, ExpectedRevisionId, stale reads after a change.
func TestModelPolicyRules(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.table("policy", types.BillingModePayPerRequest, false)
	d, _ := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("policy")})
	arn := d.Table.TableArn
	doc := `{"Version":"2012-10-17","Statement":[]}`
	_, err := w.ddb.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: arn, Policy: aws.String(doc), ExpectedRevisionId: aws.String("123")})
	w.expect(err, "PolicyNotFoundException")
	out, err := w.ddb.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: arn, Policy: aws.String(doc), ExpectedRevisionId: aws.String("NO_POLICY")})
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.ddb.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: arn, Policy: aws.String(doc)})
	if err != nil || aws.ToString(again.RevisionId) != aws.ToString(out.RevisionId) {
		t.Fatalf("same document, revision %v then %v (%v)", out.RevisionId, again.RevisionId, err)
	}
	// One stale read (StaleReads: 1), then the policy.
	_, err = w.ddb.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: arn})
	w.expect(err, "PolicyNotFoundException")
	got, err := w.ddb.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: arn})
	if err != nil || aws.ToString(got.RevisionId) != aws.ToString(out.RevisionId) {
		t.Fatalf("after the stale read: %+v %v", got, err)
	}
	_, err = w.ddb.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: arn, ExpectedRevisionId: aws.String("other")})
	w.expect(err, "PolicyNotFoundException")
}

// Application Auto Scaling: a policy needs its target, registering moves
// the capacity into the bounds, an on-demand table cannot be registered.
func TestModelAutoScalingRules(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.table("scaled", types.BillingModeProvisioned, false)
	w.table("ondemand", types.BillingModePayPerRequest, false)
	target := func(table string, minC int32) error {
		_, err := w.scale.RegisterScalableTarget(ctx, &applicationautoscaling.RegisterScalableTargetInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
			ResourceId: aws.String("table/" + table), ScalableDimension: aastypes.ScalableDimensionDynamoDBTableReadCapacityUnits,
			MinCapacity: aws.Int32(minC), MaxCapacity: aws.Int32(100)})
		return err
	}
	_, err := w.scale.PutScalingPolicy(ctx, &applicationautoscaling.PutScalingPolicyInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
		ResourceId: aws.String("table/scaled"), ScalableDimension: aastypes.ScalableDimensionDynamoDBTableReadCapacityUnits, PolicyName: aws.String("p"),
		PolicyType: aastypes.PolicyTypeTargetTrackingScaling, TargetTrackingScalingPolicyConfiguration: &aastypes.TargetTrackingScalingPolicyConfiguration{
			TargetValue: aws.Float64(70), PredefinedMetricSpecification: &aastypes.PredefinedMetricSpecification{
				PredefinedMetricType: aastypes.MetricTypeDynamoDBReadCapacityUtilization}}})
	w.expect(err, "ObjectNotFoundException")
	w.expect(target("ondemand", 1), "ValidationException")
	if err := target("scaled", 20); err != nil {
		t.Fatal(err)
	}
	d, _ := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("scaled")})
	if aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits) != 20 {
		t.Fatalf("read capacity = %d, want it moved to the minimum 20", aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits))
	}
}

// as is a world's view as another account: another access key id, which
// DynamoDB Local and the model both keep apart (one database per access key
// id and Region).
func (w *world) as(key string) (*dynamodb.Client, *applicationautoscaling.Client) {
	w.t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "secret"}, nil
		})))
	if err != nil {
		w.t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg), applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) {
		o.BaseEndpoint = aws.String(w.gap.URL())
	})
}

// Two accounts (two access key ids) with a table of the same name see only
// their own replicas and scalable targets through the model, as they see
// only their own tables in DynamoDB Local: what the multi-account tests of
// the adapter rely on when they use the model.
func TestModelKeepsAccountsApart(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	ddbA, scaleA := w.as("accounta")
	ddbB, scaleB := w.as("accountb")
	for _, db := range []*dynamodb.Client{ddbA, ddbB} {
		if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("same"), BillingMode: types.BillingModeProvisioned,
			AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
			StreamSpecification:   &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := scaleA.RegisterScalableTarget(ctx, &applicationautoscaling.RegisterScalableTargetInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
		ResourceId: aws.String("table/same"), ScalableDimension: aastypes.ScalableDimensionDynamoDBTableWriteCapacityUnits,
		MinCapacity: aws.Int32(5), MaxCapacity: aws.Int32(10)}); err != nil {
		t.Fatal(err)
	}
	targets := func(c *applicationautoscaling.Client) int {
		out, err := c.DescribeScalableTargets(ctx, &applicationautoscaling.DescribeScalableTargetsInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.ScalableTargets)
	}
	if a, b := targets(scaleA), targets(scaleB); a != 1 || b != 0 {
		t.Fatalf("scalable targets: account A sees %d, B sees %d; want 1 and 0", a, b)
	}
	// B's write capacity is not autoscaled: B may not add a replica to its
	// PROVISIONED table, A may.
	_, err := ddbB.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("same"), ReplicaUpdates: addReplica("eu-west-1")})
	w.expect(err, "ValidationException")
	if _, err := ddbA.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("same"), ReplicaUpdates: addReplica("eu-west-1")}); err != nil {
		t.Fatal(err)
	}
	replicas := func(db *dynamodb.Client) int {
		d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("same")})
		if err != nil {
			t.Fatal(err)
		}
		return len(d.Table.Replicas)
	}
	if a, b := replicas(ddbA), replicas(ddbB); a != 1 || b != 0 {
		t.Fatalf("replicas: account A sees %d, B sees %d; want 1 and 0", a, b)
	}
}

// Backups and tagging: DescribeBackup names the source table as it was
// (what Tether compares with the table it recorded), an unknown backup is
// BackupNotFoundException; with Options.Tagging tags are kept per table, a
// missing table is ResourceNotFoundException, CreateTable's tags are the
// table's from its creation, and a restored table starts
// without tags; without it, tagging is DynamoDB Local's (unknown operation).
func TestModelBackupsAndTags(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{Tagging: true})
	ctx := context.Background()
	w.table("tagged", types.BillingModePayPerRequest, false)
	src, err := w.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tagged")})
	if err != nil {
		t.Fatal(err)
	}
	arn := src.Table.TableArn
	made, err := w.ddb.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tagged"), BackupName: aws.String("b")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.ddb.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: made.BackupDetails.BackupArn})
	if err != nil {
		t.Fatal(err)
	}
	source := got.BackupDescription.SourceTableDetails
	if aws.ToString(source.TableArn) != aws.ToString(arn) || !source.TableCreationDateTime.Equal(aws.ToTime(src.Table.CreationDateTime)) {
		t.Errorf("backup source = %s created %v, want %s created %v", aws.ToString(source.TableArn), source.TableCreationDateTime,
			aws.ToString(arn), src.Table.CreationDateTime)
	}
	_, err = w.ddb.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(aws.ToString(arn) + "/backup/0-none")})
	w.expect(err, "BackupNotFoundException")

	tag := func(table, k, v string) error {
		_, err := w.ddb.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(strings.Replace(aws.ToString(arn), "tagged", table, 1)),
			Tags: []types.Tag{{Key: aws.String(k), Value: aws.String(v)}}})
		return err
	}
	tagsOf := func(table string) map[string]string {
		out, err := w.ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(strings.Replace(aws.ToString(arn), "tagged", table, 1))})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, tg := range out.Tags {
			m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
		}
		return m
	}
	if err := tag("tagged", "team", "orders"); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf("tagged"); got["team"] != "orders" {
		t.Errorf("tags = %v", got)
	}
	if _, err := w.ddb.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team"}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf("tagged"); len(got) != 0 {
		t.Errorf("tags after untag = %v", got)
	}
	w.expect(tag("missing", "team", "x"), "ResourceNotFoundException")

	if err := tag("tagged", "team", "orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ddb.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: made.BackupDetails.BackupArn,
		TargetTableName: aws.String("restored")}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf("restored"); len(got) != 0 {
		t.Errorf("a restored table carries tags %v", got)
	}
	if _, err := w.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("born-tagged"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		Tags:                 []types.Tag{{Key: aws.String("owner"), Value: aws.String("me")}}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf("born-tagged"); got["owner"] != "me" {
		t.Errorf("tags given to CreateTable = %v, want owner=me", got)
	}

	plain := newWorld(t)
	plain.table("untagged", types.BillingModePayPerRequest, false)
	_, err = plain.ddb.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(strings.Replace(aws.ToString(arn), "tagged", "untagged", 1)),
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	plain.expect(err, "UnknownOperationException")
}

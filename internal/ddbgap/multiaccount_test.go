package ddbgap_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// Multi-account global tables, with AWS's own SDK and two accounts (two
// access keys): a join refused when malformed (no settings replication,
// a key schema), from the source's own account or Region, for a source that
// is not there, without its stream or settings replication, or while either policy lacks the
// replication statements or the source's lacks the joining account's
// AssociateTableReplica; accepted once they are there, both members then
// listing each other (never themselves) with GlobalTableVersion; the
// source not deleted while it has a member; the member leaving by a
// Disassociate in its own Region once its own disassociation protection is
// off, a table of its own then.
func TestModelMultiAccountJoin(t *testing.T) {
	const srcKey, joinKey = "masrckey", "majoinkey"
	const srcAccount, joinAccount = "111111111111", "222222222222"
	w := newWorldWith(t, ddbgap.Options{Accounts: map[string]string{srcKey: srcAccount, joinKey: joinAccount}})
	ctx := context.Background()
	g := NewWithT(t)
	as := func(key, region string) *dynamodb.Client {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "s", "")))
		g.Expect(err).NotTo(HaveOccurred())
		return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(w.gap.URL()) })
	}
	src, joiner := as(srcKey, "us-east-1"), as(joinKey, "eu-west-1")
	const table = "ma-orders"
	srcArn := "arn:aws:dynamodb:us-east-1:" + srcAccount + ":table/" + table
	joinArn := "arn:aws:dynamodb:eu-west-1:" + joinAccount + ":table/" + table
	_, err := src.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	g.Expect(err).NotTo(HaveOccurred())

	describe := func(c *dynamodb.Client) *types.TableDescription {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}
	replication := func(self string) map[string]any {
		return map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": "replication.dynamodb.amazonaws.com"},
			"Action":   []any{"dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings"},
			"Resource": self, "Condition": map[string]any{"StringEquals": map[string]any{"aws:SourceAccount": []any{srcAccount, joinAccount}},
				"ArnLike": map[string]any{"aws:SourceArn": []any{srcArn, joinArn}}}}
	}
	associate := map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::" + joinAccount + ":root"},
		"Action": "dynamodb:AssociateTableReplica", "Resource": srcArn}
	doc := func(statements ...map[string]any) *string {
		text, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": statements})
		return aws.String(string(text))
	}
	join := func(c *dynamodb.Client, source string, edit func(*dynamodb.CreateTableInput)) error {
		in := &dynamodb.CreateTableInput{TableName: aws.String(table), GlobalTableSourceArn: aws.String(source),
			GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled, ResourcePolicy: doc(replication(joinArn))}
		if edit != nil {
			edit(in)
		}
		_, err := c.CreateTable(ctx, in)
		return err
	}
	w.expect(join(joiner, srcArn, func(in *dynamodb.CreateTableInput) { in.GlobalTableSettingsReplicationMode = "" }), "ValidationException")
	w.expect(join(joiner, srcArn, func(in *dynamodb.CreateTableInput) {
		in.KeySchema = []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
	}), "ValidationException")
	w.expect(join(as(srcKey, "eu-west-1"), srcArn, nil), "ValidationException")  // its own account
	w.expect(join(as(joinKey, "us-east-1"), srcArn, nil), "ValidationException") // the source's Region
	w.expect(join(joiner, "arn:aws:dynamodb:us-east-1:"+srcAccount+":table/missing", nil), "ResourceNotFoundException")
	w.expect(join(joiner, srcArn, nil), "ValidationException") // no stream yet
	_, err = src.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	g.Expect(err).NotTo(HaveOccurred())
	w.expect(join(joiner, srcArn, nil), "ValidationException") // no settings replication on the source
	settings := func(mode types.GlobalTableSettingsReplicationMode) error {
		_, err := src.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), GlobalTableSettingsReplicationMode: mode})
		return err
	}
	w.expect(settings(types.GlobalTableSettingsReplicationModeEnabledWithOverrides), "ValidationException")
	g.Expect(settings(types.GlobalTableSettingsReplicationModeEnabled)).To(Succeed())
	g.Expect(settings(types.GlobalTableSettingsReplicationModeEnabled)).To(Succeed(), "idempotent")
	g.Expect(describe(src).GlobalTableSettingsReplicationMode).To(BeEmpty(), "a regional table reports no mode")
	w.expect(join(joiner, srcArn, nil), "AccessDeniedException") // no policy on the source
	_, err = src.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(srcArn), Policy: doc(replication(srcArn))})
	g.Expect(err).NotTo(HaveOccurred())
	w.expect(join(joiner, srcArn, nil), "AccessDeniedException") // no AssociateTableReplica for the joining account
	_, err = src.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(srcArn), Policy: doc(replication(srcArn), associate)})
	g.Expect(err).NotTo(HaveOccurred())
	w.expect(join(joiner, srcArn, func(in *dynamodb.CreateTableInput) { in.ResourcePolicy = nil }), "AccessDeniedException") // no mirror
	g.Expect(w.gap.Calls(ddbgap.CallJoin)).To(Equal(10), "each refused join counted once (the SDK retries none of these)")
	_, err = joiner.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	w.expect(err, "ResourceNotFoundException") // no refused join made a table

	g.Expect(join(joiner, srcArn, nil)).To(Succeed())
	member := describe(joiner)
	g.Expect(aws.ToString(member.GlobalTableVersion)).To(Equal("2019.11.21"))
	g.Expect(member.GlobalTableSettingsReplicationMode).To(Equal(types.GlobalTableSettingsReplicationModeEnabled))
	g.Expect(member.Replicas).To(ConsistOf(HaveField("RegionName", aws.String("us-east-1"))))
	g.Expect(member.KeySchema).To(Equal(describe(src).KeySchema), "the key schema is the source's")
	g.Expect(member.StreamSpecification.StreamViewType).To(Equal(types.StreamViewTypeNewAndOldImages))
	g.Expect(describe(src).Replicas).To(ConsistOf(HaveField("RegionName", aws.String("eu-west-1"))))
	g.Eventually(func() types.ReplicaStatus { return describe(src).Replicas[0].ReplicaStatus }, 5*time.Second, 50*time.Millisecond).
		Should(Equal(types.ReplicaStatusActive))

	_, err = src.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	w.expect(err, "ValidationException") // the source has a member
	// Leaving but keeping the table: refused while the member's own
	// protection is on (AWS's default), then it is a table of its own.
	g.Expect(aws.ToBool(member.DisassociationProtectionEnabled)).To(BeTrue())
	leave := &dynamodb.UpdateTableInput{TableName: aws.String(table), ReplicaUpdates: []types.ReplicationGroupUpdate{{
		Disassociate: &types.DisassociateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
			DisassociationMode: types.DisassociationModeWaitForReplication}}}}
	_, err = joiner.UpdateTable(ctx, leave)
	w.expect(err, "ValidationException")
	_, err = joiner.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DisassociationProtectionEnabled: aws.Bool(false)})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = joiner.UpdateTable(ctx, leave)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(describe(joiner).Replicas).To(BeEmpty(), "a table of its own")
	g.Expect(describe(joiner).GlobalTableVersion).To(BeNil())
	g.Expect(describe(src).Replicas).To(BeEmpty())
	g.Expect(describe(src).GlobalTableVersion).To(BeNil())
	_, err = joiner.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = src.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
}

// A third account's join is checked against every member's policy, as AWS
// verifies each member's statements "for each new replica as it is added"
// (developerguide/globaltables_MA_security.html): with a source (account
// A) and a member (account B) whose statements name only A and B, account
// C's join is refused, whichever of the two lacks C; once both name all
// three, and C's own policy does, it is accepted, and each member lists the
// other two.
func TestModelMultiAccountThirdJoinChecksEveryMember(t *testing.T) {
	const keyA, keyB, keyC = "ma3akey", "ma3bkey", "ma3ckey"
	const accountA, accountB, accountC = "111111111111", "222222222222", "333333333333"
	w := newWorldWith(t, ddbgap.Options{Accounts: map[string]string{keyA: accountA, keyB: accountB, keyC: accountC}})
	ctx := context.Background()
	g := NewWithT(t)
	as := func(key, region string) *dynamodb.Client {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "s", "")))
		g.Expect(err).NotTo(HaveOccurred())
		return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(w.gap.URL()) })
	}
	a, b, c := as(keyA, "us-east-1"), as(keyB, "eu-west-1"), as(keyC, "ap-south-1")
	const table = "ma3-orders"
	arnA := "arn:aws:dynamodb:us-east-1:" + accountA + ":table/" + table
	arnB := "arn:aws:dynamodb:eu-west-1:" + accountB + ":table/" + table
	arnC := "arn:aws:dynamodb:ap-south-1:" + accountC + ":table/" + table
	arnOf := map[string]string{arnA: accountA, arnB: accountB, arnC: accountC}
	replication := func(self string, members ...string) map[string]any {
		var accounts, arns []any
		for _, m := range members {
			accounts, arns = append(accounts, arnOf[m]), append(arns, m)
		}
		return map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": "replication.dynamodb.amazonaws.com"},
			"Action":   []any{"dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings"},
			"Resource": self, "Condition": map[string]any{"StringEquals": map[string]any{"aws:SourceAccount": accounts},
				"ArnLike": map[string]any{"aws:SourceArn": arns}}}
	}
	associate := map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": []any{"arn:aws:iam::" + accountB + ":root", "arn:aws:iam::" + accountC + ":root"}},
		"Action": "dynamodb:AssociateTableReplica", "Resource": arnA}
	doc := func(statements ...map[string]any) *string {
		text, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": statements})
		return aws.String(string(text))
	}
	put := func(cl *dynamodb.Client, arn string, policy *string) {
		_, err := cl.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: policy})
		g.Expect(err).NotTo(HaveOccurred())
	}
	join := func(cl *dynamodb.Client, policy *string) error {
		_, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), GlobalTableSourceArn: aws.String(arnA),
			GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled, ResourcePolicy: policy})
		return err
	}
	describe := func(cl *dynamodb.Client) *types.TableDescription {
		out, err := cl.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Table
	}
	_, err := a.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = a.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled})
	g.Expect(err).NotTo(HaveOccurred())
	put(a, arnA, doc(replication(arnA, arnA, arnB), associate))
	g.Expect(join(b, doc(replication(arnB, arnA, arnB)))).To(Succeed())

	// C's join: the source's statements name only A and B.
	w.expect(join(c, doc(replication(arnC, arnA, arnB, arnC))), "AccessDeniedException")
	put(a, arnA, doc(replication(arnA, arnA, arnB, arnC), associate))
	// The source's do now, member B's do not.
	err = join(c, doc(replication(arnC, arnA, arnB, arnC)))
	w.expect(err, "AccessDeniedException")
	g.Expect(err.Error()).To(ContainSubstring(arnB))
	put(b, arnB, doc(replication(arnB, arnA, arnB, arnC)))
	// C's own policy must name B too.
	w.expect(join(c, doc(replication(arnC, arnA, arnC))), "AccessDeniedException")
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	w.expect(err, "ResourceNotFoundException") // no refused join made a table

	g.Expect(join(c, doc(replication(arnC, arnA, arnB, arnC)))).To(Succeed())
	g.Expect(describe(c).Replicas).To(ConsistOf(HaveField("RegionName", aws.String("us-east-1")), HaveField("RegionName", aws.String("eu-west-1"))))
	g.Expect(describe(b).Replicas).To(ConsistOf(HaveField("RegionName", aws.String("us-east-1")), HaveField("RegionName", aws.String("ap-south-1"))))
	g.Expect(describe(a).Replicas).To(ConsistOf(HaveField("RegionName", aws.String("eu-west-1")), HaveField("RegionName", aws.String("ap-south-1"))))
	for _, cl := range []*dynamodb.Client{c, b, a} {
		if cl != a {
			_, err = cl.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			g.Expect(err).NotTo(HaveOccurred())
		}
	}
	g.Eventually(func() []types.ReplicaDescription { return describe(a).Replicas }, 5*time.Second, 50*time.Millisecond).Should(BeEmpty())
	_, err = a.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
}

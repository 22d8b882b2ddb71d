package dynamodb

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// scalingAs is an Application Auto Scaling client of url as one access key
// id: one account's view of the model.
func scalingAs(t *testing.T, url, key string) *applicationautoscaling.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		t.Fatal(err)
	}
	return applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) { o.BaseEndpoint = aws.String(url) })
}

func scalableTargetsOf(t *testing.T, c *applicationautoscaling.Client, table string) []string {
	t.Helper()
	out, err := c.DescribeScalableTargets(context.Background(), &applicationautoscaling.DescribeScalableTargetsInput{
		ServiceNamespace: aastypes.ServiceNamespaceDynamodb})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tg := range out.ScalableTargets {
		if k, ok := plan.ScalingKeyOf(table, aws.ToString(tg.ResourceId), tg.ScalableDimension); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

func autoscaledTable(mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	return newTable(append([]func(*awsv1alpha1.DynamoDBTable){func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.AutoScaling = &awsv1alpha1.AutoScaling{Write: scalingPolicy(5, 50, 70)}
	}}, mutate...)...)
}

// MODEL (Application Auto Scaling and STS are models: internal/ddbgap and
// internal/ststest; the tables are DynamoDB Local's): one operator, one
// DynamoDB endpoint (the model, through the counting proxy), two
// identities. The operator's own, whose endpoint is set by
// AWS_ENDPOINT_URL_DYNAMODB alone, has no Application Auto Scaling endpoint:
// autoScaling is listed unsupported for its table. An AWSAccount naming the
// same URL as its endpoint has one there: its table gets its scalable target
// with the account's assumed credentials, in the account's own database
// (the model, like DynamoDB Local, keeps one per access key id and Region),
// never the operator's; what was learnt of the operator's endpoint does not
// hold for it.
func TestAutoScalingUsesTheAccountsIdentityOnTheModel(t *testing.T) {
	gap := ddbgap.New(dynamoDBLocal(t).URL, ddbgap.Options{})
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	f := newAccountsFixture(t, url, Options{}, ststest.Options{}, namespace("team-a", nil, nil))

	own := autoscaledTable()
	f.converge(own)
	if want := []string{plan.FeatureAutoScaling}; !slices.Equal(own.Status.UnsupportedFeatures, want) {
		t.Errorf("the operator's table: unsupported = %v, want %v", own.Status.UnsupportedFeatures, want)
	}

	if err := f.reader.Create(context.Background(), account("team-a", roleA, admitting("team-a"),
		func(a *awsv1alpha1.AWSAccount) { a.Spec.Endpoint = f.proxy.URL() })); err != nil {
		t.Fatal(err)
	}
	teams := autoscaledTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(teams)
	if len(teams.Status.UnsupportedFeatures) != 0 {
		t.Errorf("the account's table: unsupported = %v, want none", teams.Status.UnsupportedFeatures)
	}
	if got := scalableTargetsOf(t, scalingAs(t, url, keyA), teams.Name); !slices.Equal(got, []string{"table/write"}) {
		t.Errorf("account A's scalable targets = %v, want [table/write]", got)
	}
	if got := scalableTargetsOf(t, scalingAs(t, url, "tethertest"), teams.Name); len(got) != 0 {
		t.Errorf("the operator's own scalable targets = %v: registered with the wrong identity", got)
	}
	if !slices.Contains(tableNames(t, rawAs(t, url, keyA, "us-east-1")), teams.Name) {
		t.Error("the table is not in account A's database")
	}
	if calls := f.proxy.Calls(); calls["RegisterScalableTarget"] != 1 || calls["PutScalingPolicy"] != 1 {
		t.Errorf("calls = %v, want one RegisterScalableTarget and one PutScalingPolicy", calls)
	}
}

// REAL PEER (DynamoDB Local, reached as an AWSAccount's endpoint; STS is a
// model): the account's Application Auto Scaling calls go to that endpoint
// too, DynamoDB Local answers them as an unknown operation, and autoScaling
// is listed unsupported while the rest of the table is managed.
func TestAutoScalingAtAnAccountsDynamoDBLocal(t *testing.T) {
	url := dynamoDBLocal(t).URL
	f := newAccountsFixture(t, url, Options{}, ststest.Options{}, namespace("team-a", nil, nil),
		account("team-a", roleA, admitting("team-a"), func(a *awsv1alpha1.AWSAccount) { a.Spec.Endpoint = url }))
	obj := autoscaledTable(inNamespace("team-a"), usingAccount("team-a"))
	f.converge(obj)
	if want := []string{plan.FeatureAutoScaling}; !slices.Equal(obj.Status.UnsupportedFeatures, want) {
		t.Errorf("unsupported = %v, want %v", obj.Status.UnsupportedFeatures, want)
	}
	if !slices.Contains(tableNames(t, rawAs(t, url, keyA, "us-east-1")), obj.Name) {
		t.Error("the table is not in account A's database")
	}
	f.steady(obj, 2)
}

package dynamodb

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// modelFixture is a provider talking, through the counting fault proxy, to
// internal/ddbgap: AWS's documented behaviour for the APIs DynamoDB Local
// lacks (a MODEL), in front of DynamoDB Local (a real peer) for the rest.
// The real SDK clients (DynamoDB and Application Auto Scaling) run.
type modelFixture struct {
	*fixture
	gap   *ddbgap.Server
	raw   *dynamodb.Client // around the proxy (not counted), through the model
	scale *applicationautoscaling.Client
}

func newModelFixture(t *testing.T, gapOpts ddbgap.Options, opts Options) *modelFixture {
	t.Helper()
	gap := ddbgap.New(dynamoDBLocal(t).URL, gapOpts)
	url, err := gap.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gap.Close() })
	f := newFixture(t, url, opts)
	t.Setenv("AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING", f.proxy.URL())
	// The provider's clients are built on first use, after the line above.
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	scale := applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) { o.BaseEndpoint = aws.String(url) })
	return &modelFixture{fixture: f, gap: gap, raw: f.raw, scale: scale}
}

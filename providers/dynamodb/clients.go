package dynamodb

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"
)

// ClientOptions tune how the adapter talks to DynamoDB.
type ClientOptions struct {
	// DefaultRegion is used for tables whose spec names no region; when it
	// is empty too, the AWS default chain's region (AWS_REGION, profile).
	DefaultRegion string
	// RequestsPerSecond and Burst bound the calls to one region, shared by
	// every table, so a thousand tables never storm the API. Defaults 25 and
	// 100: a thousand tables polled every 2 minutes need about 8 per second,
	// and a burst lets a newly applied batch of tables start at once.
	RequestsPerSecond float64
	Burst             int
	// MaxAttempts is the SDK retryer's attempts per call (default 5): it
	// absorbs short throttling before the reconciler's backoff takes over.
	MaxAttempts int
}

func (o ClientOptions) withDefaults() ClientOptions {
	if o.RequestsPerSecond <= 0 {
		o.RequestsPerSecond = 25
	}
	if o.Burst <= 0 {
		o.Burst = 100
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	return o
}

// endpoint is one DynamoDB endpoint: a region, as reached from here.
type endpoint struct {
	API    API
	Region string
	// Key identifies the endpoint for what the adapter learns about it (the
	// APIs it lacks). It includes the configured endpoint URL, so DynamoDB
	// Local and AWS are told apart.
	Key string
}

// Clients builds one DynamoDB client per region and reuses it.
type Clients struct {
	opts ClientOptions
	mu   sync.Mutex
	byID map[string]*endpoint
	// sdkRegion is the AWS default chain's region, read once.
	sdkRegion *string
}

// NewClients returns a client factory.
func NewClients(opts ClientOptions) *Clients {
	return &Clients{opts: opts.withDefaults(), byID: map[string]*endpoint{}}
}

// Region resolves the region a table lives in: the spec's, then the
// operator's --aws-region, then the AWS default chain's (AWS_REGION, the
// shared config profile). Everything keyed by region uses the resolved one,
// so an object without a region and one naming that same region are seen
// as naming the same table, and share one limiter.
func (c *Clients) Region(ctx context.Context, specRegion string) (string, error) {
	if specRegion != "" {
		return specRegion, nil
	}
	if c.opts.DefaultRegion != "" {
		return c.opts.DefaultRegion, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sdkRegion == nil {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(defaultSDKLogger()))
		if err != nil {
			return "", fmt.Errorf("loading AWS configuration: %w", err)
		}
		c.sdkRegion = &cfg.Region
	}
	if *c.sdkRegion == "" {
		return "", fmt.Errorf("no AWS region: set spec.region, the operator's --aws-region or AWS_REGION")
	}
	return *c.sdkRegion, nil
}

// For returns the client for the region a spec names ("" for the default
// region), one per resolved region.
//
// Credentials come from the AWS default chain (environment, shared config,
// IRSA, EKS Pod Identity), and a local endpoint from the SDK's own
// AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL. The SDK's default HTTP
// client is kept, so AWS_CA_BUNDLE keeps working.
func (c *Clients) For(ctx context.Context, specRegion string) (*endpoint, error) {
	region, err := c.Region(ctx, specRegion)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ep, ok := c.byID[region]; ok {
		return ep, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithLogger(defaultSDKLogger()))
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	// One limiter per region: the operator runs with one set of
	// credentials, so a region is an account/region pair.
	limiter := rate.NewLimiter(rate.Limit(c.opts.RequestsPerSecond), c.opts.Burst)
	api := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = c.opts.MaxAttempts
			so.MaxBackoff = 5 * time.Second
			// The client-side limiter below paces calls; the SDK's retry
			// quota would instead fail calls outright under sustained
			// throttling, which the reconciler already backs off from.
			so.RateLimiter = ratelimit.None
		})
		o.APIOptions = append(o.APIOptions, limitEveryAttempt(limiter), countEveryAttempt)
	})
	ep := &endpoint{API: api, Region: cfg.Region, Key: cfg.Region + "|" + endpointURL()}
	c.byID[region] = ep
	return ep, nil
}

// limitEveryAttempt waits for the limiter before each attempt, retries
// included (retries are where storms come from). It sits right after the
// retry loop and before signing, so a wait never ages a signature.
func limitEveryAttempt(limiter *rate.Limiter) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("TetherRateLimit",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := limiter.Wait(ctx); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleFinalize(ctx, in)
			})
		if err := stack.Finalize.Insert(mw, "Retry", middleware.After); err == nil {
			return nil
		}
		return stack.Finalize.Add(mw, middleware.After)
	}
}

// endpointURL is the custom endpoint the SDK will use, "" for AWS itself.
func endpointURL() string {
	if u := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"); u != "" {
		return u
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

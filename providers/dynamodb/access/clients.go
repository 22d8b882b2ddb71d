package access

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// ClientOptions tune how the adapter talks to DynamoDB.
type ClientOptions struct {
	// DefaultRegion is used for tables whose spec and AWSAccount name no
	// region; when it is empty too, the AWS default chain's region
	// (AWS_REGION, profile).
	DefaultRegion string
	// AccountID is the operator's own AWS account (--aws-account-id). With
	// it, tables of the operator's own identity and those of an AWSAccount
	// whose role is in that same account are known to share the account
	// (its limiter, its table names). Without it the operator's own identity
	// counts as an account of its own.
	AccountID string
	// RequestsPerSecond and Burst bound the calls to one account in one
	// region, shared by every table there, so a thousand tables never storm
	// the API. Defaults 25 and 100: a thousand tables polled every 2 minutes
	// need about 8 per second, and a burst lets a newly applied batch of
	// tables start at once.
	RequestsPerSecond float64
	Burst             int
	// MaxAttempts is the SDK retryer's attempts per call (default 5): it
	// absorbs short throttling before the reconciler's backoff takes over.
	MaxAttempts int
}

// The default limiter of one account in one region.
const (
	DefaultRequestsPerSecond = 25
	DefaultBurst             = 100
)

func (o ClientOptions) withDefaults() ClientOptions {
	if o.RequestsPerSecond <= 0 {
		o.RequestsPerSecond = DefaultRequestsPerSecond
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	return o
}

// operatorAccount keys the operator's own identity when its account id is
// not known.
const operatorAccount = "operator"

// Target is where an object's table lives and who Tether is there: an
// AWSAccount (nil: the operator's own identity) and a region.
type Target struct {
	// Account names the AWSAccount, "" for the operator's own identity.
	Account    string
	Region     string
	AWSAccount *awsv1alpha1.AWSAccount
}

// Endpoint is one DynamoDB client: an identity in a region, as reached from
// here.
type Endpoint struct {
	API    API
	Region string
	// Scaling is the Application Auto Scaling client beside the DynamoDB
	// one, with the same identity, region and limiter; nil where there is
	// none (beside DynamoDB Local, see newScalingAPI).
	Scaling ScalingAPI
	// Identity names the AWSAccount, "" for the operator's own identity.
	Identity string
	// Account keys what belongs to one AWS account: the limiter, conflicts
	// between objects, what Tether created. It is the account id, or
	// operatorAccount.
	Account string
	// AccountID is the account id when known.
	AccountID string
	// URL is the endpoint the client talks to, "" for AWS itself.
	URL string
	// Key identifies the endpoint for what the adapter learns about it (the
	// APIs it lacks): the region and URL, so DynamoDB Local and AWS are told
	// apart.
	Key string
	// budget is the limiter and turns shared by every client of the same
	// account and region.
	budget *budget
	// session is the AWSAccount's credentials, nil for the operator's own.
	session *session
	// AWSAccount is the AWSAccount as it was when this endpoint was made
	// (an endpoint is made per AWSAccount generation, see sessionLocked),
	// nil for the operator's own identity: what it trusts its namespaces
	// with. Read only.
	AWSAccount *awsv1alpha1.AWSAccount
}

// TableKey names a table the way AWS does: account, region, name.
func (e *Endpoint) TableKey(name string) string { return e.Account + "|" + e.Region + "|" + name }

// Clients builds one DynamoDB client per identity and region and reuses it;
// requests are paced by one limiter per account and region.
type Clients struct {
	opts ClientOptions
	mu   sync.Mutex
	// base is the operator's own configuration (the AWS default chain),
	// loaded once: its credentials are the source of every AssumeRole.
	base      *aws.Config
	endpoints map[string]*Endpoint      // identity|region
	budgets   map[string]*budget        // account|region
	sessions  map[string]*session       // AWSAccount name
	demand    map[string]*accountDemand // account|region
	// feeds, when set, are told of each write AWS accepted (echoes.go).
	feeds Feeds
	// lacking and probes are what endpoints were found to lack (probe.go).
	lacking lacking
	probes  probes
}

// NewClients returns a client factory; feeds, when not nil, are told of
// each write AWS accepted.
func NewClients(opts ClientOptions, feeds Feeds) *Clients {
	return &Clients{opts: opts.withDefaults(), endpoints: map[string]*Endpoint{}, budgets: map[string]*budget{},
		sessions: map[string]*session{}, demand: map[string]*accountDemand{}, feeds: feeds}
}

// RequestsPerSecond is the limiter's rate of one account in one region.
func (c *Clients) RequestsPerSecond() float64 { return c.opts.RequestsPerSecond }

// Region resolves the region a table lives in: the spec's, then the
// AWSAccount's, then the operator's --aws-region, then the AWS default
// chain's (AWS_REGION, the shared config profile). Everything keyed by
// region uses the resolved one, so an object without a region and one
// naming that same region are seen as naming the same table, and share one
// limiter.
func (c *Clients) Region(ctx context.Context, specRegion, accountRegion string) (string, error) {
	for _, r := range []string{specRegion, accountRegion, c.opts.DefaultRegion} {
		if r != "" {
			return r, nil
		}
	}
	base, err := c.baseConfig(ctx)
	if err != nil {
		return "", err
	}
	if base.Region == "" {
		return "", fmt.Errorf("no AWS region: set spec.region, the AWSAccount's region, the operator's --aws-region or AWS_REGION")
	}
	return base.Region, nil
}

// baseConfig loads the operator's own configuration once.
func (c *Clients) baseConfig(ctx context.Context) (aws.Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.baseConfigLocked(ctx)
}

func (c *Clients) baseConfigLocked(ctx context.Context) (aws.Config, error) {
	if c.base == nil {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(defaultSDKLogger()))
		if err != nil {
			return aws.Config{}, fmt.Errorf("loading AWS configuration: %w", err)
		}
		c.base = &cfg
	}
	return *c.base, nil
}

// For returns the client for a table's target: the operator's own identity
// or an AWSAccount's, in the target's region.
//
// The operator's own credentials come from the AWS default chain
// (environment, shared config, IRSA, EKS Pod Identity), and a local
// endpoint from the SDK's own AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL;
// an AWSAccount's credentials come from STS (see session). The SDK's
// default HTTP client is kept, so AWS_CA_BUNDLE keeps working.
func (c *Clients) For(ctx context.Context, t Target) (*Endpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	base, err := c.baseConfigLocked(ctx)
	if err != nil {
		return nil, err
	}
	var sess *session
	identity := operatorAccount
	if t.AWSAccount != nil {
		if sess, err = c.sessionLocked(base, t.AWSAccount); err != nil {
			return nil, err
		}
		identity = sess.fingerprint
	}
	key := identity + "|" + t.Region
	if ep, ok := c.endpoints[key]; ok {
		return ep, nil
	}
	cfg := base.Copy()
	cfg.Region = t.Region
	url, accountEndpoint := envEndpointURL(), ""
	if sess != nil {
		cfg.Credentials = sess.creds
		if accountEndpoint = t.AWSAccount.Spec.Endpoint; accountEndpoint != "" {
			url = accountEndpoint
		}
	}
	account, accountID := c.AccountOf(t.AWSAccount)
	b := c.budgetLocked(account, t.Region)
	api := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if accountEndpoint != "" {
			o.BaseEndpoint = aws.String(accountEndpoint)
		}
		o.Retryer = c.retryer()
		o.APIOptions = append(o.APIOptions, limitEveryAttempt(b), countEveryAttempt("dynamodb", account, t.Region))
		if c.feeds != nil {
			o.APIOptions = append(o.APIOptions, tellFeedsOfWrites(c.feeds, t.Account, accountID, t.Region))
		}
	})
	ep := &Endpoint{API: api, Region: t.Region, Identity: t.Account, Account: account, AccountID: accountID, URL: url,
		Key: t.Region + "|" + url, budget: b, session: sess, Scaling: c.newScalingAPI(cfg, accountEndpoint, account, b)}
	if t.AWSAccount != nil {
		ep.AWSAccount = t.AWSAccount.DeepCopy()
	}
	if ep.Scaling == nil {
		// What is learnt about an endpoint holds for those with the same
		// APIs: one without Application Auto Scaling beside it is another.
		ep.Key += "|no-application-auto-scaling"
	}
	c.endpoints[key] = ep
	return ep, nil
}

// retryer is the SDK retryer of every client: the SDK's standard one with
// MaxAttempts attempts.
func (c *Clients) retryer() aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = c.opts.MaxAttempts
		so.MaxBackoff = 5 * time.Second
		// The client-side limiter paces calls; the SDK's retry quota would
		// instead fail calls outright under sustained throttling, which the
		// reconciler already backs off from.
		so.RateLimiter = ratelimit.None
	})
}

// AccountOf is the account key and id of an AWSAccount (nil: the operator's
// own identity).
func (c *Clients) AccountOf(a *awsv1alpha1.AWSAccount) (key, id string) {
	if a != nil {
		id = a.AccountID()
	} else {
		id = c.opts.AccountID
	}
	if id == "" {
		return operatorAccount, ""
	}
	return id, id
}

// budgetLocked is the one limiter, and queue of turns, of an account in a
// region.
func (c *Clients) budgetLocked(account, region string) *budget {
	key := account + "|" + region
	b, ok := c.budgets[key]
	if !ok {
		b = newBudget(rate.NewLimiter(rate.Limit(c.opts.RequestsPerSecond), c.opts.Burst))
		c.budgets[key] = b
	}
	return b
}

// limitEveryAttempt waits for the limiter before each attempt, retries
// included (retries are where storms come from); a pass's first call uses
// the token the pass reserved when it took its turn (turns.go). It sits
// right after the retry loop and before signing, so a wait never ages a
// signature.
func limitEveryAttempt(b *budget) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("TetherRateLimit",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := b.wait(ctx); err != nil {
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

// envEndpointURL is the custom endpoint the SDK will use for the operator's
// own identity, "" for AWS itself.
func envEndpointURL() string {
	if u := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"); u != "" {
		return u
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// AWSConfig is the AWS configuration of an identity in a region, for the
// services Tether calls beside DynamoDB (the change feed's SQS, STS): the
// operator's own (a nil account), or an AWSAccount's session, the same
// credentials its tables' calls use. Its calls are counted in
// tether_external_calls_total under service.
func (c *Clients) AWSConfig(ctx context.Context, a *awsv1alpha1.AWSAccount, region, service string) (aws.Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	base, err := c.baseConfigLocked(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	cfg := base.Copy()
	if region != "" {
		cfg.Region = region
	}
	if a != nil {
		s, err := c.sessionLocked(base, a)
		if err != nil {
			return aws.Config{}, err
		}
		cfg.Credentials = s.creds
	}
	account, _ := c.AccountOf(a)
	cfg.APIOptions = append(cfg.APIOptions, countEveryAttempt(service, account, cfg.Region))
	return cfg, nil
}

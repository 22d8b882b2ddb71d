package access

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// operatorAccount keys the operator's own identity when its account id is
// not known.
const operatorAccount = "operator"

// stsFallbackRegion is where STS is asked when no region is configured:
// STS is global, and its regional endpoints all answer.
const stsFallbackRegion = "us-east-1"

// firstOf is the first value that is not "".
func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// Clients builds one DynamoDB client per identity and region and reuses it;
// requests are paced by one limiter per account and region.
type Clients struct {
	opts ClientOptions
	mu   sync.Mutex
	// base is the operator's own configuration (the AWS default chain),
	// loaded once: its credentials are the source of every AssumeRole.
	base      *aws.Config
	endpoints map[string]*Endpoint // identity|region
	budgets   map[string]*budget   // account|region
	sessions  map[string]*session  // AWSAccount name
	demand    demand               // what the tables ask of each account and region
	// feeds, when set, are told of each write AWS accepted (echoes.go).
	feeds Feeds
	// capabilities are what endpoints were found to lack (probe.go).
	capabilities capabilities
	// operator is the operator's own account, once STS named it
	// (operator.go).
	operator operatorIdentity
}

// NewClients returns a client factory; feeds, when not nil, are told of
// each write AWS accepted.
func NewClients(opts ClientOptions, feeds Feeds) *Clients {
	opts = opts.withDefaults()
	return &Clients{opts: opts, endpoints: map[string]*Endpoint{}, budgets: map[string]*budget{},
		sessions: map[string]*session{}, demand: demand{byKey: map[string]*accountDemand{}, rps: opts.RequestsPerSecond}, feeds: feeds}
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
//
// The operator's own identity gets an endpoint only once STS has said which
// account it is in (OperatorAccount): until then, no call is made as it.
func (c *Clients) For(ctx context.Context, t Target) (*Endpoint, error) {
	if t.AWSAccount == nil {
		if _, err := c.OperatorAccount(ctx); err != nil {
			return nil, err
		}
	}
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
		Key: t.Region + "|" + url, budget: b, session: sess, Scaling: newScalingAPI(cfg, accountEndpoint, account, b, c.retryer())}
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
// own identity, whose id is known once STS named it: OperatorAccount).
func (c *Clients) AccountOf(a *awsv1alpha1.AWSAccount) (key, id string) {
	if a != nil {
		id = a.AccountID()
	} else {
		id = c.operator.known()
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

// sessionLocked returns the AWSAccount's session, building a new one when
// the account changed.
func (c *Clients) sessionLocked(base aws.Config, a *awsv1alpha1.AWSAccount) (*session, error) {
	fp := sessionFingerprint(a)
	if s, ok := c.sessions[a.Name]; ok && s.fingerprint == fp {
		return s, nil
	}
	if old, ok := c.sessions[a.Name]; ok {
		c.dropEndpointsLocked(old.fingerprint)
	}
	stsRegion := firstOf(a.Spec.Region, c.opts.DefaultRegion, base.Region, stsFallbackRegion)
	account, _ := c.AccountOf(a)
	s := newSession(base, a, stsRegion, account)
	c.sessions[a.Name] = s
	return s, nil
}

func (c *Clients) dropEndpointsLocked(fingerprint string) {
	for k := range c.endpoints {
		if strings.HasPrefix(k, fingerprint+"|") {
			delete(c.endpoints, k)
		}
	}
}

// CheckCredentials gets the AWSAccount's credentials before any DynamoDB
// call (see session.check): nothing for the operator's own identity.
func (c *Clients) CheckCredentials(ctx context.Context, ep *Endpoint, retryDenied bool) error {
	if ep.session == nil {
		return nil
	}
	return ep.session.check(ctx, retryDenied)
}

// InvalidateCredentials makes the next call assume the role again when AWS
// said the session's credentials are expired or unknown (revoked).
func (c *Clients) InvalidateCredentials(ep *Endpoint, err error) {
	if ep.session != nil {
		ep.session.invalidate(err)
	}
}

// SetDemand records one object's calls per second (moving it when its
// account or region changed) and returns its account and region's stretch
// (stretch.go).
func (c *Clients) SetDemand(ep *Endpoint, uid types.UID, perSecond float64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.demand.set(ep.Account, ep.Region, uid, perSecond)
}

// DropDemand forgets an object (deleted, released, paused): its demand and
// its turn in every limiter's queue.
func (c *Clients) DropDemand(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.budgets {
		b.drop(uid)
	}
	c.demand.drop(uid)
}

// Lacks says whether the endpoint is known not to implement a feature.
func (c *Clients) Lacks(ep *Endpoint, feature string) bool {
	return c.capabilities.lacks(ep.Key, feature)
}

// RecordLacking remembers that an endpoint lacks a feature's API.
func (c *Clients) RecordLacking(ep *Endpoint, feature string) { c.capabilities.record(ep.Key, feature) }

// Probe runs read, the first time for an endpoint and feature one caller
// at a time (see capabilities.probe).
func (c *Clients) Probe(ep *Endpoint, feature string, read func() error) error {
	return c.capabilities.probe(ep.Key, feature, read)
}

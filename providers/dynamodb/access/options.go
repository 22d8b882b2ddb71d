package access

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
	defaultBurst             = 100
)

func (o ClientOptions) withDefaults() ClientOptions {
	if o.RequestsPerSecond <= 0 {
		o.RequestsPerSecond = DefaultRequestsPerSecond
	}
	if o.Burst <= 0 {
		o.Burst = defaultBurst
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	return o
}

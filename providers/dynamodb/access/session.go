package access

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/aws/smithy-go"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// session is an AWSAccount's credentials: aws-sdk-go-v2's stscreds
// assume-role provider (each hop of the chain signing with the credentials
// of the one before, the first with the operator's own) inside the SDK's
// credentials cache, which refreshes them before they expire. Nothing here
// signs or refreshes by hand.
type session struct {
	// fingerprint changes when the AWSAccount's spec does (a new
	// generation) or it is re-created (a new UID): a new session then.
	fingerprint string
	creds       *aws.CredentialsCache
	roleARN     string
	// denied is AWS's refusal of the last AssumeRole, kept so that the
	// tables of the account do not each ask again (see check).
	mu     sync.Mutex
	denied error
}

// deniedDelay is how often an object of an account whose role AWS refused
// looks again. It costs no AWS call (see CheckCredentials).
const deniedDelay = 10 * time.Minute

// CredentialsExpiryWindow is how long before they expire credentials are
// refreshed, so a call never signs with credentials about to lapse.
const CredentialsExpiryWindow = time.Minute

func sessionFingerprint(a *awsv1alpha1.AWSAccount) string {
	return fmt.Sprintf("%s/%s/%d", a.Name, a.UID, a.Generation)
}

// newSession assumes the AWSAccount's role, through its chain of roles,
// with STS in stsRegion; account keys its calls in the metrics.
func newSession(base aws.Config, a *awsv1alpha1.AWSAccount, stsRegion, account string) *session {
	var creds aws.CredentialsProvider = base.Credentials
	hops := append(slices.Clone(a.Spec.ViaRoles), a.Spec.AssumeRole)
	for _, hop := range hops {
		cfg := base.Copy()
		cfg.Region = stsRegion
		cfg.Credentials = creds
		client := sts.NewFromConfig(cfg, func(o *sts.Options) {
			o.APIOptions = append(o.APIOptions, countEveryAttempt("sts", account, stsRegion))
		})
		creds = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(client, hop.RoleARN, assumeRoleOptions(a, hop)),
			func(o *aws.CredentialsCacheOptions) { o.ExpiryWindow = CredentialsExpiryWindow })
	}
	return &session{fingerprint: sessionFingerprint(a), creds: creds.(*aws.CredentialsCache), roleARN: a.Spec.AssumeRole.RoleARN}
}

func assumeRoleOptions(a *awsv1alpha1.AWSAccount, hop awsv1alpha1.AssumeRole) func(*stscreds.AssumeRoleOptions) {
	return func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = hop.SessionName
		if o.RoleSessionName == "" {
			o.RoleSessionName = defaultSessionName(a.Name)
		}
		if hop.ExternalID != "" {
			o.ExternalID = aws.String(hop.ExternalID)
		}
		for _, k := range slices.Sorted(maps.Keys(hop.SessionTags)) {
			o.Tags = append(o.Tags, ststypes.Tag{Key: aws.String(k), Value: aws.String(hop.SessionTags[k])})
		}
	}
}

// defaultSessionName is "tether-<AWSAccount name>", cut to STS's 64
// characters, with characters STS refuses replaced.
func defaultSessionName(account string) string {
	name := "tether-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_+=,.@-", r) {
			return r
		}
		return '-'
	}, account)
	return name[:min(len(name), 64)]
}

// check gets the AWSAccount's credentials before any DynamoDB call (from
// the cache: no call while they are valid), so that a refused AssumeRole
// is reported as what it is. After AWS refused, no table of the account
// asks again until the AWSAccount changes (a new session) or the table's
// own object does (retryDenied): a trust policy is fixed by a person, and
// a thousand tables must not each retry it.
func (s *session) check(ctx context.Context, retryDenied bool) error {
	s.mu.Lock()
	denied := s.denied
	s.mu.Unlock()
	if denied != nil && !retryDenied {
		return denied
	}
	_, err := s.creds.Retrieve(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.denied = nil
		return nil
	}
	classified := classifySTS("AssumeRole "+s.roleARN, err)
	if ra, ok := providers.AsRetryAfter(classified); ok && ra.Reason == ReasonAccessDenied {
		s.denied = classified
	}
	return classified
}

// classifySTS turns an STS call's failure (call names it: "AssumeRole
// <role>", "GetCallerIdentity") into a typed error with AWS's code and
// message and no request id. A refusal (AccessDenied, a ValidationError of
// the role's values) waits for a person; anything else (STS unreachable,
// throttled) is retried like any endpoint error.
func classifySTS(call string, err error) error {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return providers.RetryAfter(endpointErrorDelay, reasonEndpointError, fmt.Errorf("STS %s: %w", call, err))
	}
	e := &awsError{text: fmt.Sprintf("STS %s: %s: %s", call, apiErr.ErrorCode(), apiErr.ErrorMessage()), cause: err}
	switch apiErr.ErrorCode() {
	case "AccessDenied", "ValidationError", "RegionDisabledException", "MalformedPolicyDocument", "PackedPolicyTooLarge", "InvalidClientTokenId", "ExpiredToken":
		return providers.RetryAfter(deniedDelay, ReasonAccessDenied, e)
	case "Throttling", "ThrottlingException":
		return providers.RetryAfter(ThrottledDelay, providers.ReasonThrottled, e)
	}
	return providers.RetryAfter(endpointErrorDelay, reasonEndpointError, e)
}

// invalidate makes the next call assume the role again: AWS said the
// session's credentials are expired or unknown (revoked).
func (s *session) invalidate(err error) {
	switch ErrorCode(err) {
	case "ExpiredTokenException", "UnrecognizedClientException", "InvalidSignatureException":
		s.creds.Invalidate()
	}
}

// SessionName is the session name Tether assumes an AWSAccount's role
// with: its spec's, else "tether-<name>". CloudTrail records Tether's
// calls under it.
func SessionName(a *awsv1alpha1.AWSAccount) string {
	if s := a.Spec.AssumeRole.SessionName; s != "" {
		return s
	}
	return defaultSessionName(a.Name)
}

package access

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/tether-dev/tether/providers"
)

// The operator's own account. Credentials from the AWS default chain say
// nothing of the account they belong to, and a manager restarted with
// another account's (a changed Secret, IRSA role or profile) would make the
// tables of its status there again, empty. So before any call of the
// operator's own identity Tether asks STS whose credentials they are, with
// GetCallerIdentity ("No permissions are required to perform this
// operation. If an administrator attaches a policy to your identity that
// explicitly denies access to the sts:GetCallerIdentity action, you can
// still perform this operation": STS API Reference, GetCallerIdentity), and
// keeps the answer for the life of the process. An AWSAccount's account is
// its role's, which AssumeRole cannot leave.

// whoAmIRetry is how long a failed GetCallerIdentity is answered from
// memory: a thousand tables waiting for STS ask it once, not each.
const whoAmIRetry = endpointErrorDelay

// whoAmITimeout bounds one GetCallerIdentity: a pass waits for it.
const whoAmITimeout = 10 * time.Second

// operatorIdentity is what STS said of the operator's credentials.
type operatorIdentity struct {
	mu sync.Mutex
	// id is the account, once STS named it.
	id string
	// err and failedAt are the last failure, answered again until
	// whoAmIRetry has passed.
	err      error
	failedAt time.Time
}

// known is the account STS named, "" before it did.
func (o *operatorIdentity) known() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.id
}

// OperatorAccount is the AWS account of the operator's own credentials, as
// STS names it: asked once, then kept. With --aws-account-id set, STS must
// name that very account: the flag is a claim about the credentials, the
// answer is the fact. The error is typed like an AssumeRole's (AccessDenied
// for credentials STS refuses, EndpointError when it cannot be reached).
func (c *Clients) OperatorAccount(ctx context.Context) (string, error) {
	o := &c.operator
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.id != "" {
		return o.id, nil
	}
	if o.err != nil && time.Since(o.failedAt) < whoAmIRetry {
		return "", o.err
	}
	id, err := c.askWhoAmI(ctx)
	if err == nil && c.opts.AccountID != "" && id != c.opts.AccountID {
		// Fixed by a person (the flag or the credentials), like a refusal.
		err = providers.RetryAfter(deniedDelay, ReasonAccessDenied, fmt.Errorf("the operator's credentials are of AWS account %s, "+
			"but --aws-account-id says %s: Tether makes no call as the operator until the two agree", id, c.opts.AccountID))
	}
	if err != nil {
		o.err, o.failedAt = err, time.Now()
		return "", err
	}
	o.id, o.err = id, nil
	return id, nil
}

// askWhoAmI calls GetCallerIdentity with the operator's own credentials.
func (c *Clients) askWhoAmI(ctx context.Context) (string, error) {
	base, err := c.baseConfig(ctx)
	if err != nil {
		return "", err
	}
	region := firstOf(c.opts.DefaultRegion, base.Region, stsFallbackRegion)
	cfg := base.Copy()
	cfg.Region = region
	client := sts.NewFromConfig(cfg, func(o *sts.Options) {
		o.APIOptions = append(o.APIOptions, countEveryAttempt("sts", operatorAccount, region))
	})
	ctx, cancel := context.WithTimeout(ctx, whoAmITimeout)
	defer cancel()
	out, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", classifySTS("GetCallerIdentity", err)
	}
	id := aws.ToString(out.Account)
	if !IsAccountID(id) {
		return "", fmt.Errorf("STS GetCallerIdentity answered %q, which is no AWS account id", id)
	}
	return id, nil
}

// IsAccountID says whether s is an AWS account id: 12 digits.
func IsAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

package dynamodb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// What a namespace may do with the tables of its account beyond its own:
// restore another table's data, grant a principal outside the account
// access, take over a table it did not create. Trust comes with the
// identity a table uses. An AWSAccount grants what its spec.tenancy says,
// and by default nothing: a namespace restores only from its own tables,
// publishes only to principals of the account, and adopts nothing. The
// operator's own identity is the operator's, trusted with everything; by
// default only the operator's namespace may use it (--aws-require-account).

// Reasons of the refusals. They are not terminal: they depend on the
// AWSAccount and on other objects, whose changes wake the table.
const (
	reasonRestoreNotAllowed  = "RestoreNotAllowed"
	reasonPolicyNotAllowed   = "PolicyNotAllowed"
	reasonAdoptionNotAllowed = "AdoptionNotAllowed"
)

// trustsFully says whether the endpoint's identity is the operator's own.
func trustsFully(ep *access.Endpoint) bool { return ep.AWSAccount == nil }

// tenancyOf is the endpoint's AWSAccount's spec.tenancy (empty for the
// operator's own identity, which trustsFully).
func tenancyOf(ep *access.Endpoint) awsv1alpha1.Tenancy {
	a := ep.AWSAccount
	if a == nil {
		return awsv1alpha1.Tenancy{}
	}
	return a.Spec.Tenancy
}

func refusal(reason, format string, args ...any) error {
	return providers.RetryAfter(accountDelay, reason, fmt.Errorf(format, args...))
}

func isRefusal(err error, reason string) bool {
	ra, ok := providers.AsRetryAfter(err)
	return ok && ra.Reason == reason
}

// mayAdopt says whether obj's namespace may adopt a table of the
// endpoint's account, and if not, why.
func (p *Provider) mayAdopt(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (bool, string, error) {
	if trustsFully(ep) {
		return true, "", nil
	}
	ns := &corev1.Namespace{}
	if err := p.opts.Reader.Get(ctx, client.ObjectKey{Name: obj.Namespace}, ns); err != nil {
		return false, "", client.IgnoreNotFound(err)
	}
	if selects(tenancyOf(ep).AdoptionNamespaces, ns) {
		return true, "", nil
	}
	return false, fmt.Sprintf("AWSAccount %s does not let namespace %s adopt tables (its spec.tenancy.adoptionNamespaces)",
		ep.Identity, obj.Namespace), nil
}

// checkPolicyPrincipals refuses a resource policy that grants access to a
// principal outside the table's account, unless the AWSAccount allows that
// principal's account.
func checkPolicyPrincipals(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, pol *plan.Policy) error {
	if pol == nil || pol.Absent || trustsFully(ep) {
		return nil
	}
	allowed := tenancyOf(ep).PolicyPrincipalAccounts
	if slices.Contains(allowed, "*") {
		return nil
	}
	var outside []string
	for _, principal := range grantedPrincipals(pol.Doc) {
		account := principalAccount(principal)
		if account == "" || (account != ep.AccountID && !slices.Contains(allowed, account)) {
			outside = append(outside, principal)
		}
	}
	if len(outside) == 0 {
		return nil
	}
	return refusal(reasonPolicyNotAllowed, "spec.resourcePolicy grants access to %s, outside account %s; AWSAccount %s does not allow it "+
		"(its spec.tenancy.policyPrincipalAccounts): the policy is not attached and, before the table exists, the table is not created",
		strings.Join(outside, ", "), ep.AccountID, ep.Identity)
}

// grantedPrincipals lists whom a policy document's Allow statements grant
// access to, in IAM's grammar (Statement an object or a list; Principal
// "*" or a map of AWS, Service, Federated, CanonicalUser to a string or a
// list). An Allow with NotPrincipal grants everyone else: "*".
func grantedPrincipals(doc any) []string {
	m, _ := doc.(map[string]any)
	var statements []any
	switch st := m["Statement"].(type) {
	case []any:
		statements = st
	case map[string]any:
		statements = []any{st}
	}
	var out []string
	for _, raw := range statements {
		st, _ := raw.(map[string]any)
		if effect, _ := st["Effect"].(string); effect != "Allow" {
			continue
		}
		if _, ok := st["NotPrincipal"]; ok {
			out = append(out, "*")
		}
		switch pr := st["Principal"].(type) {
		case string:
			out = append(out, pr)
		case map[string]any:
			for _, kind := range []string{"AWS", "Service", "Federated", "CanonicalUser"} {
				for _, v := range stringsOf(pr[kind]) {
					if kind != "AWS" {
						v = kind + ":" + v
					}
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// principalAccount is the account an AWS principal belongs to: a 12-digit
// account id, or the account field of an IAM or STS ARN. "" for anything
// else ("*", service, federated and canonical-user principals, unique ids):
// nothing proves those are inside the account.
func principalAccount(principal string) string {
	if isAccountID(principal) {
		return principal
	}
	parts := strings.SplitN(principal, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" && (parts[2] == "iam" || parts[2] == "sts") && isAccountID(parts[4]) {
		return parts[4]
	}
	return ""
}

func isAccountID(s string) bool {
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

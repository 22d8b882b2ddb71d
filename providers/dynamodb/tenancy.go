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
// principal's account, and one with a grant it does not fully understand
// (principals.go): the text it reads is the one sent to AWS.
func checkPolicyPrincipals(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, pol *plan.Policy) error {
	if pol == nil || pol.Absent || trustsFully(ep) {
		return nil
	}
	allowed := tenancyOf(ep).PolicyPrincipalAccounts
	if slices.Contains(allowed, "*") {
		return nil
	}
	partition, _ := access.PartitionOf(ep.Region)
	grants, err := policyGrants(pol.Text, partition)
	if err != nil {
		return refusal(reasonPolicyNotAllowed, "spec.resourcePolicy has a grant Tether does not fully understand (%v); AWSAccount %s lets "+
			"namespace %s grant access only to principals of account %s (its spec.tenancy.policyPrincipalAccounts), which it must be able to "+
			"tell: write the document as IAM's grammar does (Statement, Effect, Principal with AWS, Service, Federated or CanonicalUser, "+
			"each a string or a list of strings): the policy is not attached and, before the table exists, the table is not created",
			err, ep.Identity, obj.Namespace, ep.AccountID)
	}
	var outside []string
	for _, g := range grants {
		if g.account == "" || (g.account != ep.AccountID && !slices.Contains(allowed, g.account)) {
			outside = append(outside, g.principal)
		}
	}
	if len(outside) == 0 {
		return nil
	}
	where := ep.AccountID
	if partition != "" {
		where += " of partition " + partition
	}
	return refusal(reasonPolicyNotAllowed, "spec.resourcePolicy grants access to %s, outside account %s; AWSAccount %s does not allow it "+
		"(its spec.tenancy.policyPrincipalAccounts): the policy is not attached and, before the table exists, the table is not created",
		strings.Join(outside, ", "), where, ep.Identity)
}

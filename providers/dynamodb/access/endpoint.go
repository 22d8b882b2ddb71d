package access

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

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

// TakeTurn lets obj's pass start now, or gives it a turn in its limiter's
// queue and returns the deferral that brings it back then; calls is what
// the pass is expected to make. A pass that starts reserves its first
// call's token at once, so that passes started together see each other in
// the backlog; the returned context carries that token to the call.
func (e *Endpoint) TakeTurn(ctx context.Context, uid types.UID, calls int) (context.Context, error) {
	return e.budget.take(ctx, uid, calls, time.Now())
}

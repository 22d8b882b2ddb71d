package dynamodb

import (
	"context"
	"errors"
	"fmt"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

var (
	_ providers.Connector[*awsv1alpha1.DynamoDBTable] = (*Provider)(nil)
	_ providers.External[*awsv1alpha1.DynamoDBTable]  = (*tableConn)(nil)
)

// tableConn is a DynamoDBTable connected to its account and region's
// endpoint for one pass, with no earlier object naming the same table.
type tableConn struct {
	p  *Provider
	ep *access.Endpoint
}

// Connect resolves the table's account, region and client and checks that
// no earlier object names the same table, once per pass: Observe, Create,
// Update and Delete use what it found. A table being deleted lets go instead
// when its deletion policy retains it or another object manages it; when
// its account cannot be reached, the error says how to let go of it.
func (p *Provider) Connect(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (providers.External[*awsv1alpha1.DynamoDBTable], error) {
	deleting := !obj.DeletionTimestamp.IsZero()
	if deleting && obj.Spec.DeletionPolicy == awsv1alpha1.DeletionPolicyRetain {
		p.forget(obj)
		return providers.Released[*awsv1alpha1.DynamoDBTable](), nil
	}
	ep, err := p.endpointFor(ctx, obj)
	if err != nil {
		if deleting {
			return nil, withReleaseHint(err)
		}
		return nil, err
	}
	if err := p.checkConflict(ctx, ep, obj); err != nil {
		var c *conflictError
		switch conflict := errors.As(err, &c); {
		case conflict && deleting:
			p.forget(obj) // another object manages the table: let go of it
			return providers.Released[*awsv1alpha1.DynamoDBTable](), nil
		case conflict:
			return conflicted{c.Wait}, nil
		}
		return nil, err
	}
	return &tableConn{p: p, ep: ep}, nil
}

// conflicted is a DynamoDBTable naming a table another object manages: it
// observes the conflict as its wait, and sends nothing.
type conflicted struct{ providers.Wait }

func (c conflicted) Observe(context.Context, *awsv1alpha1.DynamoDBTable) (providers.Observation, error) {
	return providers.Waiting(c.Wait), nil
}
func (conflicted) Create(context.Context, *awsv1alpha1.DynamoDBTable) error { return nil }
func (conflicted) Update(context.Context, *awsv1alpha1.DynamoDBTable, providers.Difference) error {
	return nil
}
func (conflicted) Delete(context.Context, *awsv1alpha1.DynamoDBTable) error { return nil }

// withReleaseHint tells, when the table cannot be reached to delete it
// (its account is missing, does not admit the namespace, or the object
// moved), how to let go of it instead: the finalizer stays until then.
func withReleaseHint(err error) error {
	ra, ok := providers.AsRetryAfter(err)
	if !ok {
		return err
	}
	switch ra.Reason {
	case ReasonAccountNotFound, reasonAccountNotAllowed, reasonAccountRequired:
		return providers.RetryAfter(ra.Delay, ra.Reason, fmt.Errorf("%w; the object is kept until Tether can delete its table, "+
			"or annotate it tether.dev/reconcile: paused to let go of the table without deleting it", ra.Err))
	}
	return err
}

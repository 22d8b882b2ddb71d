package dynamodb

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// IndexTableName is the field index of DynamoDBTables by the name of their
// table, which the conflict check lists by (the controller registers it):
// with 10,000 tables, listing them all on every look would copy them all.
// A table that joins another's is also under its source's key
// (joinIndexKey, multiaccount.go), which no table name can equal; whoever
// lists by it checks the table name it wants.
const IndexTableName = "tether.dev/table-name"

// TableNameOf is IndexTableName's extractor.
func TableNameOf(obj client.Object) []string {
	t, ok := obj.(*awsv1alpha1.DynamoDBTable)
	if !ok {
		return nil
	}
	keys := []string{t.ResolvedTableName()}
	if k := joinIndexKey(t); k != "" && k != keys[0] {
		keys = append(keys, k)
	}
	return keys
}

// checkConflict makes the later of two objects naming the same table (the
// same name in the same account and region, from any namespaces) touch
// nothing, by the one ownership rule (providers.Claim.Precedes: the one
// that already has the table wins, then the older one). The later one's
// error is a providers.Conflict wait.
func (p *Provider) checkConflict(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if p.opts.Reader == nil {
		return nil
	}
	// The cache's objects, read in place (every pass asks this, and the
	// index mostly finds obj alone); the one looked into is copied.
	var all awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &all, client.MatchingFields{IndexTableName: obj.ResolvedTableName()}, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for i := range all.Items {
		other := &all.Items[i]
		if other.UID == obj.UID || other.ResolvedTableName() != obj.ResolvedTableName() || !precedes(other, obj) {
			continue
		}
		other = other.DeepCopy()
		t, err := p.resolve(ctx, other)
		if err != nil && other.Status.TableID != "" {
			// The other object holds a table of this name, and where it is
			// cannot be told now (its account is missing, refuses its
			// namespace, ...): it may well be this very table, so this
			// object touches nothing until that can be told.
			return providers.RetryAfter(conflictDelay, reasonHolderUnresolved, fmt.Errorf(
				"DynamoDBTable %s/%s holds a table named %s, and which account and region it is in cannot be told (%v); "+
					"this object touches nothing while that one may hold this table (to let go of this object's table without "+
					"touching it, annotate the object tether.dev/reconcile: paused)",
				other.Namespace, other.Name, obj.ResolvedTableName(), err))
		}
		if err != nil {
			// It holds no table, and can make none while unresolved.
			continue
		}
		if t.Region != ep.Region {
			continue
		}
		if account, _ := p.clients.AccountOf(t.AWSAccount); account != ep.Account {
			continue
		}
		// A wait: the check costs no AWS call (it reads the cache), and
		// once the other object is gone this one may take over.
		return &conflictError{providers.Conflict(conflictDelay,
			"table %s in %s, region %s, is already managed by DynamoDBTable %s/%s; this object touches nothing while that one exists",
			obj.ResolvedTableName(), accountLabel(ep.Identity), ep.Region, other.Namespace, other.Name)}
	}
	return nil
}

// conflictError is checkConflict's word for a table another object
// manages: Connect turns it into an External that observes it as a wait.
type conflictError struct{ providers.Wait }

func (e *conflictError) Error() string { return e.Message }

// precedes says whether a has the better claim to a table than b.
func precedes(a, b *awsv1alpha1.DynamoDBTable) bool {
	return claimOf(a).Precedes(claimOf(b))
}

// claimOf is obj's claim on its table: it holds one once it has found or
// made it (status.tableID).
func claimOf(obj *awsv1alpha1.DynamoDBTable) providers.Claim {
	return providers.Claim{Key: client.ObjectKeyFromObject(obj), Created: obj.CreationTimestamp, Holds: obj.Status.TableID != ""}
}

// joinIndexKey is the key a joining table is listed under in
// IndexTableName besides its own name: its source's table name (tableArn),
// or "ref:<namespace>/<name>" of the DynamoDBTable it names (tableRef),
// which no table name can be (a table name has no ':' or '/').
func joinIndexKey(t *awsv1alpha1.DynamoDBTable) string {
	src := t.Spec.GlobalTableSource
	if src == nil {
		return ""
	}
	if ns, name, ok := SourceRef(t); ok {
		return refIndexKey(ns, name)
	}
	_, _, _, name, _ := plan.ArnParts(src.TableArn)
	return name
}

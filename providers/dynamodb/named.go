package dynamodb

import (
	"maps"
	"sync"

	apitypes "k8s.io/apimachinery/pkg/types"
)

// What an object's spec named on its table, in Tether's own record.
//
// A spec that drops a tag, a scalable target, a Kinesis destination or
// its resource policy has Tether remove it from the table, and the status
// lists what Tether manages for the user to see (managedTagKeys,
// managedScalableTargets, managedKinesisStreamArn,
// resourcePolicyRevisionId). The status is anyone's to write who may patch
// the status subresource, so it decides nothing alone
// (docs/guarantees.md): a thing it lists is removed only when this record
// says the object's spec named it while the table had it, or Tether itself
// put it there for the object. Replicas have a record of their own
// (replicas.go), which also knows the replicas Tether added.
//
// The record is in memory, where nothing a tenant writes reaches it. After
// a manager restart it starts empty, so a thing the spec dropped while the
// manager was down stays on the table (and in the status list, for the
// user to see and remove by hand); one the spec drops later is removed as
// before.

// Kinds of things a spec names on a table.
const (
	namedTag     = "tag"     // a tag key
	namedScaling = "scaling" // a scalable target, by plan.ScalingKeyOf
	namedKinesis = "kinesis" // a Kinesis data stream, by ARN
	namedPolicy  = "policy"  // a resource policy, by revision id
)

// namedThing is one thing on a table: its kind and its id there.
type namedThing struct{ kind, id string }

// namedOnTables are, by table key (account, region, name), the things an
// object's spec named while the table had them, with the object.
type namedOnTables struct {
	mu    sync.Mutex
	byKey map[string]map[namedThing]apitypes.UID
}

// note records that uid's spec names the table's thing, which the table
// has.
func (n *namedOnTables) note(key, kind, id string, uid apitypes.UID) {
	if id == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byKey == nil {
		n.byKey = map[string]map[namedThing]apitypes.UID{}
	}
	if n.byKey[key] == nil {
		n.byKey[key] = map[namedThing]apitypes.UID{}
	}
	n.byKey[key][namedThing{kind, id}] = uid
}

// isOf says whether uid's spec named the table's thing.
func (n *namedOnTables) isOf(key, kind, id string, uid apitypes.UID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	by, ok := n.byKey[key][namedThing{kind, id}]
	return ok && by == uid
}

// theirs are those of ids (as the status lists them) that uid's spec
// named: the ones a spec that drops them may remove.
func (n *namedOnTables) theirs(key, kind string, ids []string, uid apitypes.UID) []string {
	var out []string
	for _, id := range ids {
		if n.isOf(key, kind, id, uid) {
			out = append(out, id)
		}
	}
	return out
}

// forget drops what uid's spec named on the table (the object lets go of
// it or it is deleted).
func (n *namedOnTables) forget(key string, uid apitypes.UID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	maps.DeleteFunc(n.byKey[key], func(_ namedThing, by apitypes.UID) bool { return by == uid })
	if len(n.byKey[key]) == 0 {
		delete(n.byKey, key)
	}
}

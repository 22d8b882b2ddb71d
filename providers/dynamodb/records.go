package dynamodb

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	apitypes "k8s.io/apimachinery/pkg/types"
)

// Tether's own records of the tables it handles, by table key (account,
// region, name): whose each table is, the restores and imports it began,
// the replicas it added. They are kept in memory, where nothing a tenant
// writes reaches them, and decide what the status only shows (ownership.go,
// restore.go, import.go, replicas.go; what a spec named is in named.go).

// ownerRecord is Tether's own record that a table is an object's: which
// object, and the identity of that very table (identity.go).
type ownerRecord struct{ UID, TableID string }

// ownerRecords are Tether's own records of whose tables are whose, by
// table key (account, region, name): the tables it created or restored for
// an object (from the call's own answer), and those whose owner tag it
// read. They are kept in memory, where nothing a tenant writes reaches
// them, and are the first proof of ownership (ownership.go); after a
// restart, the owner tag proves it again, once.
type ownerRecords = byTable[ownerRecord]

func (r ownerRecord) owner() string { return r.UID }

// restoreStart is Tether's record of a restore it began for an object:
// from which source (as sent), and when. Should the restore's answer be
// lost (a timeout), the table it made is recognised by its restore summary
// (restoredFor).
type restoreStart struct {
	UID, source string
	at          time.Time
}

// restoreStarts are the restores Tether began, by table key, in memory.
type restoreStarts = byTable[restoreStart]

func (r restoreStart) owner() string { return r.UID }

// joinRecord is Tether's record of the join it sent for an object: the
// source's ARN as the CreateTable named it. A joined table's policy names
// that source (joinedSource), never one the status names: the status is
// anyone's to write who may patch the status subresource.
type joinRecord struct{ UID, source string }

// joinRecords are the joins Tether sent, by table key, in memory.
type joinRecords = byTable[joinRecord]

func (r joinRecord) owner() string { return r.UID }

// byTable is one kind of Tether's in-memory records, by table key
// (account, region, name), for passes that run at once. A record names the
// object it is for; one that names none is no record.
type byTable[R interface{ owner() string }] struct {
	mu    sync.Mutex
	byKey map[string]R
}

func (rs *byTable[R]) of(key string) R {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.byKey[key]
}

// mark records r for key; a record for no object forgets it.
func (rs *byTable[R]) mark(key string, r R) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r.owner() == "" {
		delete(rs.byKey, key)
		return
	}
	if rs.byKey == nil {
		rs.byKey = map[string]R{}
	}
	rs.byKey[key] = r
}

// importRecord is Tether's own record of an ImportTable AWS answered for
// an object: in memory, where nothing a tenant writes reaches it, it is
// what proves the table the import made is obj's until the owner tag is
// on it (importedFor), as the CreateTable answer does for a created table.
type importRecord struct {
	UID        string
	generation int64
	// arn is the import's; tableArn and tableID the table's, as
	// ImportTable answered them.
	arn, tableArn, tableID string
	at                     time.Time
	// status is the import's last known status.
	status types.ImportStatus
}

// ended says whether the import has ended (COMPLETED, FAILED or
// CANCELLED): nothing more will happen to the table by it.
func (r importRecord) ended() bool {
	return r.status == types.ImportStatusCompleted || r.status == types.ImportStatusFailed || r.status == types.ImportStatusCancelled
}

// importRecords are the imports Tether began, by table key.
type importRecords = byTable[importRecord]

func (r importRecord) owner() string { return r.UID }

// addedReplicas are the replicas Tether added, by table key and Region,
// with the object it added each for. They decide which replicas Tether
// removes before deleting a table, so they are Tether's own record, in
// memory: status.addedReplicaRegions shows them, and is anyone's to write
// (who may patch the status subresource).
//
// named are, likewise, the replicas the object's spec named while the
// table had them: a replica the spec drops is removed (deleted or
// disassociated) only when one of the two records says it is the
// object's.
type addedReplicas struct {
	mu    sync.Mutex
	byKey map[string]map[string]apitypes.UID
	named map[string]map[string]apitypes.UID
}

// name notes that the object uid's spec names the table's replica in
// region, which the table has.
func (a *addedReplicas) name(key, region string, uid apitypes.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.named == nil {
		a.named = map[string]map[string]apitypes.UID{}
	}
	if a.named[key] == nil {
		a.named[key] = map[string]apitypes.UID{}
	}
	a.named[key][region] = uid
}

// mayRemove says whether Tether added the table's replica in region for
// uid, or uid's spec named it: only then may a spec that drops it remove it.
func (a *addedReplicas) mayRemove(key, region string, uid apitypes.UID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	added, ok := a.byKey[key][region]
	named, ok2 := a.named[key][region]
	return (ok && added == uid) || (ok2 && named == uid)
}

func (a *addedReplicas) add(key, region string, uid apitypes.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[string]map[string]apitypes.UID{}
	}
	if a.byKey[key] == nil {
		a.byKey[key] = map[string]apitypes.UID{}
	}
	a.byKey[key][region] = uid
}

// has says whether Tether added the table's replica in region for uid.
func (a *addedReplicas) has(key, region string, uid apitypes.UID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	by, ok := a.byKey[key][region]
	return ok && by == uid
}

// regions are the Regions of the table's replicas Tether added or a spec
// named.
func (a *addedReplicas) regions(key string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Collect(maps.Keys(a.byKey[key]))
	for region := range a.named[key] {
		if !slices.Contains(out, region) {
			out = append(out, region)
		}
	}
	slices.Sort(out)
	return out
}

// drop forgets one replica (it is gone).
func (a *addedReplicas) drop(key, region string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[string]map[string]apitypes.UID{a.byKey, a.named} {
		delete(m[key], region)
		if len(m[key]) == 0 {
			delete(m, key)
		}
	}
}

// forget drops the table's record of the replicas added for uid (the
// object lets go of the table).
func (a *addedReplicas) forget(key string, uid apitypes.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[string]map[string]apitypes.UID{a.byKey, a.named} {
		maps.DeleteFunc(m[key], func(_ string, by apitypes.UID) bool { return by == uid })
		if len(m[key]) == 0 {
			delete(m, key)
		}
	}
}

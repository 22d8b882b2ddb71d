package reconciler

import (
	"slices"
	"sync"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// cacheCatchUp is how soon a pass that found the cache behind its own last
// status write runs again: the informer delivers that write within
// milliseconds.
const cacheCatchUp = 20 * time.Millisecond

// cacheLagLimit is how long a pass waits for the cache to show its own
// write before deciding from what the cache has anyway (a watch that is
// reconnecting may take that long; the next resync corrects the rest).
const cacheLagLimit = 10 * time.Second

// ownWrites keeps, per object, the resourceVersions its last writes
// replaced (the finalizer, the status). A pass reads the object from the
// manager's cache, which shows a write a moment after the API server took
// it; a pass that starts in that moment (a provider waking the object
// right after a write it sent) would decide from the copy before the
// write. Its status then equals that stale copy, so it writes nothing, and
// the status keeps saying what the write before said ("Updating") until
// the next resync; a deletion would run, and be announced, twice. Such a
// pass waits for the cache instead.
type ownWrites struct {
	mu       sync.Mutex
	versions map[ctrl.Request]replacedVersions
}

// replacedVersions are the resourceVersions writes replaced since the cache
// last showed the object as written, and until when a copy at one of them
// is waited out.
type replacedVersions struct {
	versions []string
	until    time.Time
}

func newOwnWrites() *ownWrites {
	return &ownWrites{versions: map[ctrl.Request]replacedVersions{}}
}

// wrote records a status write that turned resourceVersion before into
// after. A write the API server found empty (before == after) replaced
// nothing.
func (w *ownWrites) wrote(req ctrl.Request, before, after string, now time.Time) {
	if before != after {
		w.replaced(req, before, now)
	}
}

// replaced records that a write changed the object the cache had at
// resourceVersion before.
func (w *ownWrites) replaced(req ctrl.Request, before string, now time.Time) {
	if before == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.versions[req]
	r.versions = append(r.versions, before)
	r.until = now.Add(cacheLagLimit)
	w.versions[req] = r
}

// behind reports whether a cached copy at resourceVersion predates the
// object's last write (and the wait for it has not run out). A copy at any
// other version is the cache caught up: the record goes.
func (w *ownWrites) behind(req ctrl.Request, resourceVersion string, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.versions[req]
	if !ok {
		return false
	}
	if slices.Contains(r.versions, resourceVersion) && now.Before(r.until) {
		return true
	}
	delete(w.versions, req)
	return false
}

// forget drops the object's record: it is gone.
func (w *ownWrites) forget(req ctrl.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.versions, req)
}

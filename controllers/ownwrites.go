package controllers

import (
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

// ownWrites keeps, per object, the resourceVersion its last status write
// replaced. A pass reads the object from the manager's cache, which shows
// that write a moment after the API server took it; a pass that starts in
// that moment (a provider waking the object right after a write it sent)
// would decide from the copy before the write. Its status then equals that
// stale copy, so it writes nothing, and the status keeps saying what the
// write before said ("Updating") until the next resync. Such a pass waits
// for the cache instead.
type ownWrites struct {
	mu       sync.Mutex
	replaced map[ctrl.Request]replacedVersion
}

// replacedVersion is the resourceVersion a status write replaced, and until
// when a copy at that version is waited out.
type replacedVersion struct {
	resourceVersion string
	until           time.Time
}

func newOwnWrites() *ownWrites {
	return &ownWrites{replaced: map[ctrl.Request]replacedVersion{}}
}

// wrote records a status write that turned resourceVersion before into
// after. A write the API server found empty (before == after) replaced
// nothing.
func (w *ownWrites) wrote(req ctrl.Request, before, after string, now time.Time) {
	if before == "" || before == after {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.replaced[req] = replacedVersion{resourceVersion: before, until: now.Add(cacheLagLimit)}
}

// behind reports whether a cached copy at resourceVersion predates the
// object's last status write (and the wait for it has not run out).
func (w *ownWrites) behind(req ctrl.Request, resourceVersion string, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.replaced[req]
	if !ok {
		return false
	}
	if r.resourceVersion == resourceVersion && now.Before(r.until) {
		return true
	}
	delete(w.replaced, req)
	return false
}

// forget drops the object's record: it is gone.
func (w *ownWrites) forget(req ctrl.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.replaced, req)
}

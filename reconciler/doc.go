// Package reconciler is the one generic managed-resource reconciler: the
// lifecycle every Tether kind goes through, whatever its backend. A kind
// plugs a provider (a providers.Connector) into it with New; package
// controllers does that for each kind and nothing else.
//
// How a pass flows (reconciler.go):
//
//   - The object is read from the cache; a pass woken right after its own
//     status write waits for the cache to show that write (ownwrites.go).
//   - Deleting: the provider deletes the external thing, then the
//     finalizer goes (finalize). Paused: the provider is told, nothing is
//     called outside, Synced says Paused (resync.go: the annotations).
//   - Otherwise the finalizer is added first, then one pass: Connect,
//     Observe, and at most one write (Create or Update). An object whose
//     last attempt failed terminally is only read (recheck), until its spec
//     or annotations change (terminal.go).
//   - What a pass saw becomes the object's conditions (conditions.go),
//     events on transitions (notes.go announces a note once), the next look
//     (resync.go: the poll interval, jittered, or what the provider asks
//     for) and the backoff of faults that repeat (metrics.go keeps its
//     current delay visible).
//   - A write the backend accepts and never shows is stopped by the stall
//     breaker (stall.go) after a few tries.
//   - Status is written only when the pass changed it; events go to the
//     API server one at a time (events.go); per-object metrics follow each
//     object's conditions (objectmetrics.go).
package reconciler

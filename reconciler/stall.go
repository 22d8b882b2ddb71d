package reconciler

import (
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
)

// stallBreaker stops a write that the backend accepts and never shows: a
// bulb that clamps a value Tether does not know it clamps, an endpoint that
// ignores a field. Without it such a write is sent again at every look, for
// ever. A write is "the same" when Observe describes the same difference
// (Difference.String, which says what the backend shows and what the spec
// wants, or its StallKey) for the same generation; it stops counting when a
// read confirms the object up to date. So a change made from outside (the
// difference then reads differently), a spec change or a confirmed match
// all start over, while a write that bounces is sent at most StallAfter
// times.
//
// It lives in memory: after a restart a stalled write is tried StallAfter
// times more, which costs a few calls at most.
type stallBreaker struct {
	after int

	mu   sync.Mutex
	sent map[ctrl.Request]sentWrite
}

// sentWrite is the last write sent for one object.
type sentWrite struct {
	generation int64
	diff       string
	times      int
}

func newStallBreaker(after int) *stallBreaker {
	return &stallBreaker{after: after, sent: map[ctrl.Request]sentWrite{}}
}

// stalled reports whether diff was already sent StallAfter times for this
// generation, and how many times.
func (b *stallBreaker) stalled(req ctrl.Request, generation int64, diff string) (int, bool) {
	if b.after <= 0 {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.sent[req]
	if !ok || w.generation != generation || w.diff != diff {
		return 0, false
	}
	return w.times, w.times >= b.after
}

// record notes that diff was sent (the adapter accepted the write).
func (b *stallBreaker) record(req ctrl.Request, generation int64, diff string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.sent[req]
	if w.generation != generation || w.diff != diff {
		w = sentWrite{generation: generation, diff: diff}
	}
	w.times++
	b.sent[req] = w
}

// settled forgets the object's writes: a read confirmed it up to date, or
// the object is gone.
func (b *stallBreaker) settled(req ctrl.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sent, req)
}

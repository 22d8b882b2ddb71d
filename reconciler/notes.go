package reconciler

import (
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
)

// announcedNotes remembers, per object, the note of an available match
// (Ready=True with a reason such as Limited) that a Warning event last
// announced, and for which generation. Ready leaves the note while a write
// is on its way (Updating: a drift corrected, a bridge back online) and
// comes back to it afterwards; that return is not news, so the note is
// announced once per generation, not once per return.
//
// It lives in memory. A restarted manager finds the note in the status
// already and announces nothing (see announce).
type announcedNotes struct {
	mu    sync.Mutex
	notes map[ctrl.Request]announcedNote
}

type announcedNote struct {
	generation      int64
	reason, message string
}

func newAnnouncedNotes() *announcedNotes {
	return &announcedNotes{notes: map[ctrl.Request]announcedNote{}}
}

// announce records the object's note for its generation and reports
// whether an event should announce it: only when Ready just turned to it
// (changed) and this note was not announced for this generation before.
// A note Ready already showed before the pass was announced when Ready got
// there, by this manager or an earlier one.
func (a *announcedNotes) announce(req ctrl.Request, generation int64, reason, message string, changed bool) bool {
	n := announcedNote{generation: generation, reason: reason, message: message}
	a.mu.Lock()
	defer a.mu.Unlock()
	known := a.notes[req] == n
	a.notes[req] = n
	return changed && !known
}

// forget drops the object's note: it is gone.
func (a *announcedNotes) forget(req ctrl.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.notes, req)
}

package reconciler

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tether-dev/tether/providers"
)

// Behaviour is what the reconciler does at the end of a stage of a pass.
// Each has one name; decide is the only place that picks one, and
// docs/how-it-works.md lists them all ("What a pass can end in").
type Behaviour string

const (
	// Matched: the outside matches the spec. Ready from the observation
	// (with its note, announced once), the next look at the resync or
	// sooner when the observation asks (NextLook); the stall breaker
	// forgets the object's writes once a read has confirmed them.
	Matched Behaviour = "Matched"
	// Waiting: Observe chose not to write (a conflict, a transition the
	// backend finishes by itself): Ready says why, the next look when the
	// wait says (the poll interval by default).
	Waiting Behaviour = "Waiting"
	// Held: Observe waits a moment for something that wakes the object
	// (a write in a bridge's line, a read about to show it): nothing is
	// written, so a change costs one status write.
	Held Behaviour = "Held"
	// Deferred: the budget the pass shares with other objects (an AWS
	// account's calls per second) is spent before the pass began: the
	// worker is given back, and nothing about the object changes.
	Deferred Behaviour = "Deferred"
	// Created and Updated: the write went out. Ready False until a read
	// shows it (Creating, Updating), an event, the next look soon after
	// (AfterWrite); the stall breaker counts an update.
	Created Behaviour = "Created"
	Updated Behaviour = "Updated"
	// Handed: the write was handed over (to a bridge's line, or to a
	// backend that accepted it and has yet to show it): the event and the
	// stall breaker count it as sent; Ready says what it waits for.
	Handed Behaviour = "Handed"
	// HandedQuietly: handed over, and its outcome is known in a moment:
	// as Handed, without a status write.
	HandedQuietly Behaviour = "HandedQuietly"
	// Pending: a stage could not finish yet and nothing is wrong (a table
	// busy, a delete going on, a bridge's link button not pressed): Synced
	// and Ready False with the reason, the next look when it says, no
	// backoff.
	Pending Behaviour = "Pending"
	// Retrying: a fault that passes by itself (throttled, offline): Synced
	// and Ready False with the reason, a Warning when it appears, the next
	// try after the hint or the backoff, whichever is longer; the backoff
	// grows while the fault repeats.
	Retrying Behaviour = "Retrying"
	// Stopped: the spec cannot work as written: Stalled with the reason, a
	// Warning when it appears; nothing is written outside until the spec
	// or an annotation changes, and the outside is read at the poll
	// interval (Recovered).
	Stopped Behaviour = "Stopped"
	// StallBroken: the same write was sent StallAfter times for this
	// generation and no read shows it: Stalled (reason Stalled), a Warning
	// once; not sent again until the spec or the outside changes.
	StallBroken Behaviour = "StallBroken"
	// Failed: any other error: Synced and Ready False, a Warning when it
	// appears, the workqueue's exponential backoff.
	Failed Behaviour = "Failed"
	// Recovered: a Stopped object whose read shows the spec met: Matched,
	// with a Recovered event.
	Recovered Behaviour = "Recovered"
	// StillStopped: a Stopped object whose read does not show the spec
	// met: nothing written, read again at the poll interval.
	StillStopped Behaviour = "StillStopped"
)

// stage is the part of a pass that ended.
type stage string

const (
	stageConnect stage = "Connect"
	stageObserve stage = "Observe"
	stageCreate  stage = "Create"
	stageUpdate  stage = "Update"
	stageDelete  stage = "Delete"
)

// pass is what one stage of a pass saw, and what the reconciler knows of
// the object besides: all decide needs.
type pass struct {
	Stage stage
	// Stopped: the object's last attempt failed terminally and nothing
	// has changed since: the pass only read it (stageObserve).
	Stopped bool
	// Obs is what Observe saw (stageObserve, Err nil).
	Obs providers.Observation
	Err error
	// Diff is the difference an update sent or would send, and StallKey
	// how the stall breaker knows it.
	Diff, StallKey string
	// SentTimes, when the stall breaker stops the write Obs asks for, is
	// how often it was sent for this generation; 0 lets it go.
	SentTimes  int
	Generation int64
	// WasReady: Ready was True at this generation, so an update corrects
	// drift.
	WasReady bool
	// Poll is the object's resync interval; AfterWrite the look after a
	// write.
	Poll, AfterWrite time.Duration
}

// status is what a decision does to the object's conditions.
type statusMark int

const (
	// statusKept writes no status at all this pass.
	statusKept statusMark = iota
	statusObserved
	statusWaiting
	statusWritten
	statusFailed
	statusStalled
)

// backoff is what a decision does to the object's backoff.
type backoffRule int

const (
	backoffKept backoffRule = iota
	// backoffReset starts it over.
	backoffReset
	// backoffHint waits the fault's hint or the grown backoff, whichever
	// is longer, and grows it.
	backoffHint
	// backoffQueue leaves the next try to the workqueue's own exponential
	// backoff (the pass returns an error).
	backoffQueue
)

// stall is what a decision does to the stall breaker's count.
type stallRule int

const (
	stallKept stallRule = iota
	stallRecord
	stallSettle
)

// gate is what a decision does to the terminal gate.
type gateRule int

const (
	gateKept gateRule = iota
	gateOpen
	gateClose
)

// note is an event a decision records.
type note struct {
	Type, Reason, Action, Note string
	// OnChange records it only when the decision changed the Synced
	// condition: once per transition, not per retry.
	OnChange bool
}

// decision is what the reconciler does at the end of a stage: the status,
// an event, when to look again, and what becomes of the backoff, the
// stall breaker and the terminal gate. The reconciler only applies it
// (apply).
type decision struct {
	Behaviour Behaviour
	Status    statusMark
	// Reason and Message go into the conditions (statusWaiting, Written,
	// Failed, Stalled; statusObserved takes the observation's).
	Reason, Message string
	Event           *note
	// After is when to look again (0: not before something wakes the
	// object); Jitter spreads it.
	After   time.Duration
	Jitter  bool
	Backoff backoffRule
	Stall   stallRule
	Gate    gateRule
	// Obs is the observation a match's conditions come from
	// (statusObserved); StallKey the write the stall breaker counts
	// (stallRecord).
	Obs      providers.Observation
	StallKey string
	// Drift counts a drift correction.
	Drift bool
	// Err is returned to controller-runtime (backoffQueue).
	Err error
}

// decide is the one decision of what a pass does once a stage of it ended.
// It is pure: it reads only p.
func decide(p pass) decision {
	switch {
	case p.Stopped:
		return decideRecheck(p)
	case p.Err != nil:
		return decideError(p)
	case p.Stage == stageCreate:
		return decision{Behaviour: Created, Status: statusWritten, Reason: providers.ReasonCreating, Message: "created; waiting to observe it",
			Event: &note{Type: corev1.EventTypeNormal, Reason: ReasonCreated, Action: "Create", Note: "created the external resource"},
			After: p.AfterWrite, Jitter: true, Backoff: backoffReset, Gate: gateOpen}
	case p.Stage == stageUpdate:
		d := decision{Behaviour: Updated, Status: statusWritten, Reason: providers.ReasonUpdating, Message: "sent: " + p.Diff,
			After: p.AfterWrite, Jitter: true, Backoff: backoffReset, Gate: gateOpen}
		return sent(d, p)
	}
	switch p.Obs.Outcome {
	case providers.OutcomeUpToDate:
		d := decision{Behaviour: Matched, Status: statusObserved, Obs: p.Obs, After: nextLook(p), Jitter: true, Backoff: backoffReset, Gate: gateOpen}
		if !p.Obs.Unconfirmed {
			d.Stall = stallSettle
		}
		return d
	case providers.OutcomeWait:
		return decideWait(p)
	case providers.OutcomeUpdate:
		if p.SentTimes > 0 {
			msg := fmt.Sprintf("sent %q %d times for generation %d with no visible effect: not sent again until the spec changes "+
				"or it is changed from outside", p.Diff, p.SentTimes, p.Generation)
			return decision{Behaviour: StallBroken, Status: statusStalled, Reason: providers.ReasonStalled, Message: msg,
				Event: &note{Type: corev1.EventTypeWarning, Reason: providers.ReasonStalled, Action: "Update", Note: msg, OnChange: true},
				After: p.Poll, Jitter: true, Backoff: backoffReset, Gate: gateOpen}
		}
	}
	return decideError(pass{Stage: stageObserve, Err: fmt.Errorf("the provider's observation has no outcome (%d)", p.Obs.Outcome)})
}

// sent adds to d what every write that went out does: its event and the
// stall breaker's count.
func sent(d decision, p pass) decision {
	reason, verb := ReasonUpdated, "updated"
	if p.WasReady {
		reason, verb, d.Drift = ReasonDriftCorrected, "corrected drift", true
	}
	d.Event = &note{Type: corev1.EventTypeNormal, Reason: reason, Action: "Update", Note: fmt.Sprintf("%s: %s", verb, p.Diff)}
	d.Stall, d.StallKey = stallRecord, p.StallKey
	return d
}

// decideWait decides a wait Observe chose.
func decideWait(p pass) decision {
	w := p.Obs.Wait
	if w.Quiet {
		return decision{Behaviour: Held, After: orDefault(w.For, p.AfterWrite), Backoff: backoffReset}
	}
	return decision{Behaviour: Waiting, Status: statusWaiting, Reason: w.Reason, Message: w.Message,
		After: orDefault(w.For, p.Poll), Jitter: true, Backoff: backoffReset, Gate: gateOpen}
}

// decideRecheck decides the read of a Stopped object.
func decideRecheck(p pass) decision {
	if p.Err != nil || p.Obs.Outcome != providers.OutcomeUpToDate || p.Obs.Unconfirmed {
		return decision{Behaviour: StillStopped, After: p.Poll, Jitter: true}
	}
	return decision{Behaviour: Recovered, Status: statusObserved, Obs: p.Obs, After: nextLook(p), Jitter: true, Backoff: backoffReset,
		Stall: stallSettle, Gate: gateOpen,
		Event: &note{Type: corev1.EventTypeNormal, Reason: ReasonRecovered, Action: "Observe", Note: "the external resource matches the spec: the last failure is over"}}
}

// decideError decides a stage that ended in an error.
func decideError(p pass) decision {
	err := p.Err
	if d, ok := providers.AsDeferred(err); ok {
		return decision{Behaviour: Deferred, Reason: d.Reason, After: d.For}
	}
	if h, ok := providers.AsHanded(err); ok {
		if h.Quiet {
			return sent(decision{Behaviour: HandedQuietly, After: orDefault(h.For, p.AfterWrite), Backoff: backoffReset}, p)
		}
		return sent(decision{Behaviour: Handed, Status: statusFailed, Reason: h.Reason, Message: h.Message, After: h.For,
			Backoff: backoffReset}, p)
	}
	if w, ok := providers.AsPending(err); ok {
		return decision{Behaviour: Pending, Status: statusFailed, Reason: w.Reason, Message: w.Message, After: w.For, Backoff: backoffReset}
	}
	reason := reasonFor(p.Stage, err)
	warning := &note{Type: corev1.EventTypeWarning, Reason: reason, Action: string(p.Stage),
		Note: fmt.Sprintf("%s failed: %v", p.Stage, err), OnChange: true}
	if _, ok := providers.AsTerminal(err); ok {
		return decision{Behaviour: Stopped, Status: statusStalled, Reason: reason, Message: err.Error(), Event: warning,
			After: p.Poll, Jitter: true, Backoff: backoffReset, Gate: gateClose}
	}
	if ra, ok := providers.AsRetryAfter(err); ok {
		return decision{Behaviour: Retrying, Status: statusFailed, Reason: reason, Message: err.Error(), Event: warning,
			After: ra.Delay, Backoff: backoffHint}
	}
	return decision{Behaviour: Failed, Status: statusFailed, Reason: reason, Message: err.Error(), Event: warning,
		Backoff: backoffQueue, Err: err}
}

// nextLook is when to observe a matching object again: at its resync
// interval, or sooner when the observation asks: a transition that
// finishes by itself (while not available), or a write no read has shown
// yet (Unconfirmed; AfterWrite when it names no time). Nothing else wakes
// the latter: the read that confirms the write shows no drift.
func nextLook(p pass) time.Duration {
	next := p.Poll
	if obs := p.Obs; !obs.Available && obs.NextLook > 0 {
		next = obs.NextLook
	}
	if p.Obs.Unconfirmed {
		next = min(next, orDefault(p.Obs.NextLook, p.AfterWrite))
	}
	return next
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

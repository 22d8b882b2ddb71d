package providers

import (
	"errors"
	"fmt"
	"time"
)

// RetryAfterError is a fault that will pass by itself: throttled, busy,
// offline. The reconciler waits at least Delay, and longer while the fault
// repeats (capped exponential backoff).
type RetryAfterError struct {
	Delay  time.Duration
	Reason string
	Err    error
}

func (e *RetryAfterError) Error() string { return e.Err.Error() }
func (e *RetryAfterError) Unwrap() error { return e.Err }

// RetryAfter wraps err as a fault to retry after delay; reason is a
// CamelCase word for the conditions (BridgeUnreachable, Throttled).
func RetryAfter(delay time.Duration, reason string, err error) error {
	return &RetryAfterError{Delay: delay, Reason: reason, Err: err}
}

// Wait is what Observe says when nothing may be written now, whatever
// differs: nothing is wrong, what the pass needs comes by itself (a table
// leaves CREATING, a command leaves the bridge's line, a bulb another
// object holds is let go of), and the reconciler looks again after For,
// without backoff. Only Observe waits (Waiting); the other stages say
// "not now" with the errors below, each with a behaviour of its own.
type Wait struct {
	// Reason and Message say what the object waits for.
	Reason  string
	Message string
	// For is when to look again; 0 is the object's poll interval.
	For time.Duration
	// Quiet leaves the status as it was for this pass: the wait ends within
	// For and the adapter wakes the object then (a write about to go out,
	// whose outcome the next pass reports). An adapter waits quietly only a
	// short while: a write still waiting after that is reported plainly,
	// so a backend that does not answer still shows it.
	Quiet bool
}

// PendingError is a stage that could not finish yet while nothing is
// wrong (a table busy with another change, a delete going on, a bridge's
// link button not pressed): the reconciler says why in Synced and Ready,
// and looks again after For, without backoff.
type PendingError struct {
	Reason  string
	Message string
	For     time.Duration
}

func (e *PendingError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("waiting %s: %s", e.For.Round(time.Millisecond), e.Reason)
}

// Pendingf is a stage that could not finish yet: look again after delay,
// with reason and a message.
func Pendingf(delay time.Duration, reason, format string, args ...any) error {
	return &PendingError{For: delay, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// DeferredError is a pass that did not start: a budget it shares with
// other objects (an AWS account's calls per second) is spent for now. The
// worker is given back to objects on other budgets, and the pass runs
// again after For; nothing about the object changes.
type DeferredError struct {
	Reason string
	For    time.Duration
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("deferred %s: %s", e.For.Round(time.Millisecond), e.Reason)
}

// Defer is a pass that waits for its turn at a shared budget.
func Defer(delay time.Duration, reason string) error {
	return &DeferredError{For: delay, Reason: reason}
}

// HandedError is Update's word for a write it handed over (to a bridge's
// command line, or to a backend that accepted it and has yet to show it):
// it counts as sent for the stall breaker and its event, the conditions
// say what it waits for (Reason, Message), and the reconciler looks again
// after For. A Quiet hand-over writes no status: its outcome is known
// within For, and the adapter wakes the object then.
type HandedError struct {
	Reason  string
	Message string
	For     time.Duration
	Quiet   bool
}

func (e *HandedError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("handed over, %s: %s", e.For.Round(time.Millisecond), e.Reason)
}

// TerminalError means the spec cannot work as written (the backend rejected
// it, or it conflicts with another object). The reconciler makes no further
// external call for the object until its spec or annotations change.
type TerminalError struct {
	Reason string
	Err    error
}

func (e *TerminalError) Error() string { return e.Err.Error() }
func (e *TerminalError) Unwrap() error { return e.Err }

// Terminal wraps err as a problem only a change of the spec can fix.
func Terminal(reason string, err error) error {
	return &TerminalError{Reason: reason, Err: err}
}

// Terminalf is Terminal with a formatted message.
func Terminalf(reason, format string, args ...any) error {
	return &TerminalError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// AsRetryAfter, AsPending, AsDeferred, AsHanded and AsTerminal unwrap the
// typed errors.
func AsRetryAfter(err error) (*RetryAfterError, bool) {
	var e *RetryAfterError
	return e, errors.As(err, &e)
}

func AsPending(err error) (*PendingError, bool) {
	var e *PendingError
	return e, errors.As(err, &e)
}

func AsDeferred(err error) (*DeferredError, bool) {
	var e *DeferredError
	return e, errors.As(err, &e)
}

func AsHanded(err error) (*HandedError, bool) {
	var e *HandedError
	return e, errors.As(err, &e)
}

func AsTerminal(err error) (*TerminalError, bool) {
	var e *TerminalError
	return e, errors.As(err, &e)
}

// IsTyped says whether err already says what the reconciler should do:
// one of the typed errors above.
func IsTyped(err error) bool {
	for _, is := range []func(error) bool{
		func(e error) bool { _, ok := AsRetryAfter(e); return ok },
		func(e error) bool { _, ok := AsPending(e); return ok },
		func(e error) bool { _, ok := AsDeferred(e); return ok },
		func(e error) bool { _, ok := AsHanded(e); return ok },
		func(e error) bool { _, ok := AsTerminal(e); return ok },
	} {
		if is(err) {
			return true
		}
	}
	return false
}

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

// Wait is Tether's one word for "not now": nothing is wrong, what the pass
// needs comes by itself (a table leaves CREATING, a command leaves the
// bridge's line, a shared budget refills), and the reconciler looks again
// after For, without backoff. Observe reports it as its outcome (Waiting);
// Connect, Create, Update and Delete return it as an error, and then Synced
// says the pass could not finish yet.
type Wait struct {
	// Reason and Message say what the object waits for.
	Reason  string
	Message string
	// For is when to look again; 0 from Observe is the object's poll
	// interval.
	For time.Duration
	// Sent is set when Update handed the write over (to a bridge's command
	// line, or to the bridge, which accepted it and has yet to show it): it
	// counts as sent for the stall breaker and its event.
	Sent bool
	// Quiet leaves the status as it was for this pass: the wait ends within
	// For and the adapter wakes the object then (a write about to go out,
	// whose outcome the next pass reports), or the pass has not started (a
	// budget it shares with other objects, an AWS account's calls per
	// second, is spent for now: the worker is given back for objects on
	// other budgets). An adapter reports a quiet wait for a write only for
	// a short while: a write still waiting after that is reported plainly,
	// so a backend that does not answer still shows it.
	Quiet bool
}

func (w *Wait) Error() string {
	if w.Message != "" {
		return w.Message
	}
	return fmt.Sprintf("waiting %s: %s", w.For.Round(time.Millisecond), w.Reason)
}

// Waitf asks for another look after delay, with reason and a message.
func Waitf(delay time.Duration, reason, format string, args ...any) error {
	return &Wait{For: delay, Reason: reason, Message: fmt.Sprintf(format, args...)}
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

// AsRetryAfter, AsWait and AsTerminal unwrap the typed errors.
func AsRetryAfter(err error) (*RetryAfterError, bool) {
	var e *RetryAfterError
	return e, errors.As(err, &e)
}

func AsWait(err error) (*Wait, bool) {
	var w *Wait
	return w, errors.As(err, &w)
}

func AsTerminal(err error) (*TerminalError, bool) {
	var e *TerminalError
	return e, errors.As(err, &e)
}

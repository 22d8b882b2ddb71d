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

// PendingError is not a fault: the external side is busy with something that
// finishes by itself (a table CREATING, a delete in progress). The reconciler
// looks again after exactly Delay, without backoff.
type PendingError struct {
	Delay   time.Duration
	Reason  string
	Message string
	// Queued is set when Update handed the write over to be sent later (a
	// bridge's command line): it counts as sent for the stall breaker.
	Queued bool
	// Brief says the write goes out within Delay and the adapter wakes the
	// object then: the reconciler leaves the status as it was for this pass
	// (its observedGeneration still says the generation is not reported
	// on) instead of writing a wait that lasts a moment, and looks again
	// after Delay. An adapter reports Brief only for a short while: a write
	// still waiting after that is reported plainly, so a backend that does
	// not answer still shows it.
	Brief bool
}

func (e *PendingError) Error() string { return e.Message }

// Pending asks for another look after delay.
func Pending(delay time.Duration, reason, format string, args ...any) error {
	return &PendingError{Delay: delay, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Queued says that Update handed the write over and it goes out later; the
// reconciler looks again after delay.
func Queued(delay time.Duration, reason, format string, args ...any) error {
	return &PendingError{Delay: delay, Reason: reason, Message: fmt.Sprintf(format, args...), Queued: true}
}

// QueuedBriefly is Queued for a write that goes out within delay (see
// PendingError.Brief).
func QueuedBriefly(delay time.Duration, reason, format string, args ...any) error {
	return &PendingError{Delay: delay, Reason: reason, Message: fmt.Sprintf(format, args...), Queued: true, Brief: true}
}

// DeferredError is neither a fault nor news about the external side: the
// pass did not start because a budget it shares with other objects (an AWS
// account's calls per second) is spent for now, and waiting for it would
// hold a worker that objects on other budgets could use. The reconciler
// gives the worker back and runs the pass again after Delay, leaving the
// conditions as they were: nothing went wrong.
type DeferredError struct {
	Delay  time.Duration
	Reason string
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("deferred for %s: %s", e.Delay.Round(time.Millisecond), e.Reason)
}

// Deferred asks for the pass to run again after delay, when its turn comes;
// reason is a CamelCase word for the metric (AccountBudget).
func Deferred(delay time.Duration, reason string) error {
	return &DeferredError{Delay: delay, Reason: reason}
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

// AsRetryAfter, AsPending, AsDeferred and AsTerminal unwrap the typed errors.
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

func AsTerminal(err error) (*TerminalError, bool) {
	var e *TerminalError
	return e, errors.As(err, &e)
}

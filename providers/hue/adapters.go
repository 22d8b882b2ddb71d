package hue

import (
	"time"

	"github.com/tether-dev/tether/providers"
)

// What the adapters share besides the registry (registry.go: sessionFor
// finds the HueBridge an object names and checks that its namespace may
// use it): how soon an object looks again for what it names, telling an
// error that means there is nothing left on the bridge for the object to
// let go of, and how long a pass waits for a command alone in line and for
// the read that shows it.

// notFoundDelay is how soon an object looks again for a HueBridge, bulb or
// HueGroup it names that does not exist (yet). It is only the fallback: the
// controllers wake the objects of a HueBridge when it changes (a HueScene's
// when its HueGroup does), and the session wakes a HueLight when a read
// shows a bulb of its name (its watch by name). So the look need not be
// quick, and at 30 s a namespace of misnamed objects costs little.
const notFoundDelay = 30 * time.Second

// isGone is true for errors that mean there is nothing this HueLight may
// switch off: no bulb, no bridge, no credentials, or a namespace the bridge
// does not (or no longer) accept.
func isGone(err error) bool {
	if ra, ok := providers.AsRetryAfter(err); ok {
		switch ra.Reason {
		case ReasonLightNotFound, ReasonBridgeNotFound, ReasonNotPaired, ReasonNamespaceNotAllowed:
			return true
		}
	}
	return false
}

// sendWait is how long a command alone in line is waited for: on an idle
// bridge the reconcile that asked gets the bridge's answer, without a
// second pass. Under load nobody waits, so workers keep queueing (which
// lets same-state commands be grouped) instead of idling.
const sendWait = 200 * time.Millisecond

// A HueLight or HueGroup whose write the bridge accepted writes its status
// once, when a read shows the write (an event on a bridge that pushes its
// changes, the session's read-back otherwise): Ready and status.observed
// then agree in the same write. Until then its passes are quiet waits.

// afterSend is how an Update whose command the bridge answered ends: a
// quiet hand-over for the read that shows what it accepted, or, when a
// read already did (an event came before the answer) or the bridge refused
// it, for the look right after, which reports it. Either way the status is
// written once, by the pass that sees the outcome.
func afterSend(interval time.Duration, unconfirmed bool, acceptedAt time.Time) error {
	w := providers.Wait{Quiet: true, For: lookAgain}
	if unconfirmed {
		if wait, ok := awaitReadBack(interval, acceptedAt); ok {
			w = wait
		}
	}
	return &providers.HandedError{Reason: w.Reason, Message: w.Message, For: w.For, Quiet: w.Quiet}
}

// lookAgain is how soon the pass after a write whose outcome is known
// looks.
const lookAgain = 10 * time.Millisecond

// awaitReadBack is the quiet wait, on a session that reads every
// interval, for the read that shows a write the bridge accepted at
// acceptedAt; false once that wait is over (the bridge stopped answering,
// or the read-back was lost): the status then says Ready from what the
// bridge accepted, and the look after the next read records what it
// showed.
func awaitReadBack(interval time.Duration, acceptedAt time.Time) (providers.Wait, bool) {
	left := readBackWaitLeft(interval, time.Since(acceptedAt))
	if left <= 0 {
		return providers.Wait{}, false
	}
	return providers.Wait{Quiet: true, For: left}, true
}

// eventBatch is how long a CLIP v2 bridge may hold an event back: it sends at
// most one event message a second (Hue's CLIP v2 migration guide, "Event
// stream"; docs/hue-behaviour.md).
const eventBatch = time.Second

// readBackWaitLeft is what is left, elapsed after the bridge accepted a
// write, of the wait for the read that shows it: a poll interval and the
// event stream's batching, so that with a poll interval as short as that
// batching the event that shows the write still comes within the wait.
func readBackWaitLeft(interval, elapsed time.Duration) time.Duration {
	return interval + eventBatch - elapsed
}

package changefeed

import (
	"fmt"
	"maps"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// receiveWait is each ReceiveMessage's long poll: SQS's longest
// (WaitTimeSeconds 20), so an idle feed costs three calls a minute.
const receiveWait = 20 * time.Second

// answerWindow is how long a feed may go without an answer from SQS
// before it counts as failed: three long polls. A call that hangs is cut
// off before (receiveTimeout).
const answerWindow = 3 * receiveWait

// Reasons a feed is in its mode, as status.changeEvents.reason names them.
const (
	ReasonNotConfigured = "NotConfigured"
	ReasonStarting      = "Starting"
	ReasonReceiving     = "Receiving"
	ReasonQueueNotFound = "QueueNotFound"
	ReasonAccessDenied  = "AccessDenied"
	ReasonEndpointError = "EndpointError"
	ReasonNoAnswer      = "NoAnswer"
	ReasonBadQueue      = "BadQueue"
	// ReasonNoEcho: SQS answers, but one of Tether's own calls did not
	// come back through the queue within the echo window (echo.go).
	ReasonNoEcho = "NoEcho"
)

// health is a feed's mode and why. Its methods take the time, so that the
// rules can be tested without waiting.
//
// A feed is healthy (mode Events) while SQS answers it and Tether's own
// calls come back through it: SQS answering alone would call a feed
// healthy whose rule was deleted, disabled or no longer matches, and its
// tables would wait their safety interval for events that never come.
type health struct {
	mode, reason, message string
	since                 time.Time
	// lastAnswer is when SQS last answered a ReceiveMessage.
	lastAnswer time.Time
	// lastEvent is when the last event about one of Tether's tables came.
	lastEvent time.Time

	// echoWindow is how long one of Tether's calls may take to come back.
	echoWindow time.Duration
	// expected are Tether's calls, by table (echoKey), that have not come
	// back yet: the oldest per table, whose window ends first. Only calls
	// made while the feed is healthy are expected; a feed that leaves
	// Events forgets them.
	expected map[string]echo
	// heard is when an event about a table (echoKey) last arrived, within
	// the last echo window: an event may arrive before the call it echoes
	// has returned to Tether.
	heard map[string]time.Time
	// missed is the call whose echo never came, nil while none is
	// missing. An answer from SQS does not clear it, only an event from
	// its account: that is what shows events reach the queue again.
	missed *echo
}

func startingHealth(now time.Time, echoWindow time.Duration) health {
	if echoWindow <= 0 {
		echoWindow = DefaultEchoWindow
	}
	return health{mode: awsv1alpha1.ChangeEventsModePolling, reason: ReasonStarting,
		message: "reading the queue for the first time; until it answers, tables are read every poll interval", since: now,
		echoWindow: echoWindow, expected: map[string]echo{}, heard: map[string]time.Time{}}
}

// healthy says whether the feed covers its tables.
func (h *health) healthy() bool { return h.mode == awsv1alpha1.ChangeEventsModeEvents }

// answered records an answer from SQS. It returns true when the mode
// changed. A feed whose echo is missing stays polled: SQS answering is
// not events arriving.
func (h *health) answered(now time.Time) bool {
	h.lastAnswer = now
	if h.missed != nil {
		return h.failed(now, ReasonNoEcho, h.missed.message(h.echoWindow))
	}
	return h.set(now, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, "")
}

// failed records a call that failed. It returns true when the mode
// changed.
func (h *health) failed(now time.Time, reason, message string) bool {
	return h.set(now, awsv1alpha1.ChangeEventsModePolling, reason, message)
}

// check fails a feed SQS has not answered within answerWindow (a call
// that hangs, a reader that stopped), or one of whose expected echoes is
// older than the echo window. It returns true when the mode changed.
func (h *health) check(now time.Time) bool {
	h.forgetHeardBefore(now.Add(-h.echoWindow))
	if !h.healthy() {
		return false
	}
	if now.Sub(h.lastAnswer) > answerWindow {
		return h.failed(now, ReasonNoAnswer, fmt.Sprintf("SQS has not answered a ReceiveMessage since %s", h.lastAnswer.UTC().Format(time.RFC3339)))
	}
	if late, ok := h.oldestExpected(); ok && now.Sub(late.at) > h.echoWindow {
		h.missed = &late
		return h.failed(now, ReasonNoEcho, late.message(h.echoWindow))
	}
	return false
}

// expect records one of Tether's calls, made at began, whose event should
// come back through the feed. Calls made while the feed is not healthy
// are not expected: its tables are polled anyway, and events wait in a
// queue that cannot be read.
func (h *health) expect(e echo) {
	if !h.healthy() {
		return
	}
	key := e.key()
	if at, ok := h.heard[key]; ok && !at.Before(e.at) {
		return
	}
	if _, ok := h.expected[key]; !ok {
		h.expected[key] = e
	}
}

// hear records an event about a table of account (table "" for an event
// about none), which meets every call expected of the table, and, from
// the account of a missing echo, shows that events reach the queue again.
// It returns true when the mode changed.
func (h *health) hear(now time.Time, account, region, table string) bool {
	if table != "" {
		// A call whose account Tether does not know expects its echo
		// under no account.
		for _, key := range []string{echoKey(account, region, table), echoKey("", region, table)} {
			h.heard[key] = now
			delete(h.expected, key)
		}
	}
	if h.missed == nil || (h.missed.account != "" && h.missed.account != account) {
		return false
	}
	h.missed = nil
	if h.reason != ReasonNoEcho {
		return false
	}
	return h.set(now, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, "")
}

// oldestExpected is the expected call whose window ends first.
func (h *health) oldestExpected() (echo, bool) {
	var oldest echo
	found := false
	for _, e := range h.expected {
		if !found || e.at.Before(oldest.at) {
			oldest, found = e, true
		}
	}
	return oldest, found
}

// forgetHeardBefore drops the arrivals older than cutoff: no call still
// in flight began before them.
func (h *health) forgetHeardBefore(cutoff time.Time) {
	maps.DeleteFunc(h.heard, func(_ string, at time.Time) bool { return at.Before(cutoff) })
}

func (h *health) set(now time.Time, mode, reason, message string) bool {
	changed := h.mode != mode
	if changed {
		h.since = now
	}
	h.mode, h.reason, h.message = mode, reason, message
	if !h.healthy() {
		clear(h.expected)
	}
	return changed
}

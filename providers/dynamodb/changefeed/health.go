package changefeed

import (
	"fmt"
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
//
// What it keeps about tables is only about Tether's own calls (echo.go):
// an event about anything else, forged or real, leaves nothing behind, so
// no message on the queue grows its memory.
type health struct {
	mode, reason, message string
	since                 time.Time
	// lastAnswer is when SQS last answered a ReceiveMessage.
	lastAnswer time.Time
	// lastEvent is when the last event about one of Tether's tables came.
	lastEvent time.Time

	// echoWindow is how long one of Tether's calls may take to come back.
	echoWindow time.Duration
	// expected are Tether's calls AWS accepted whose events have not come
	// back yet, by table and call (echo.key): the oldest per key, whose
	// window ends first. They are expected while the feed is healthy, and
	// while it misses an echo (missed), when any of them coming back shows
	// that events reach the queue again. At most remembered.
	expected map[string]echo
	// underway counts Tether's calls sent and not answered yet, by key; an
	// event about one of them may arrive before its answer, and early is
	// when it did. Both hold Tether's calls in flight only.
	underway map[string]int
	early    map[string]time.Time
	// missed is the call whose echo never came, nil while none is
	// missing. An answer from SQS does not clear it, nor does any event:
	// only the echo of that call or of one expected since (the same table
	// and call) shows that Tether's events reach the queue again.
	missed *echo
}

func startingHealth(now time.Time, echoWindow time.Duration) health {
	if echoWindow <= 0 {
		echoWindow = DefaultEchoWindow
	}
	return health{mode: awsv1alpha1.ChangeEventsModePolling, reason: ReasonStarting,
		message: "reading the queue for the first time; until it answers, tables are read every poll interval", since: now,
		echoWindow: echoWindow, expected: map[string]echo{}, underway: map[string]int{}, early: map[string]time.Time{}}
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
	if !h.healthy() {
		return false
	}
	if now.Sub(h.lastAnswer) > answerWindow {
		return h.failed(now, ReasonNoAnswer, fmt.Sprintf("SQS has not answered a ReceiveMessage since %s", h.lastAnswer.UTC().Format(time.RFC3339)))
	}
	if late, ok := h.oldestExpected(); ok && now.Sub(late.at) > h.echoWindow {
		h.missed = &late
		delete(h.expected, late.key())
		return h.failed(now, ReasonNoEcho, late.message(h.echoWindow))
	}
	return false
}

// begin records one of Tether's calls about to be sent.
func (h *health) begin(e echo) { h.underway[e.key()]++ }

// callAnswered records the answer to a call begin recorded: accepted, its
// event is expected back, unless it already came while the call was
// under way. It returns true when the mode changed.
func (h *health) callAnswered(now time.Time, e echo, accepted bool) bool {
	key := e.key()
	early, came := h.early[key]
	if h.underway[key]--; h.underway[key] <= 0 {
		delete(h.underway, key)
		delete(h.early, key)
	}
	switch {
	case !accepted:
		return false
	case came && !early.Before(e.at):
		return h.met(now)
	}
	h.expect(e)
	return false
}

// expect records one of Tether's calls, made at e.at, whose event should
// come back through the feed. Calls made while the feed is not healthy
// are not expected, unless it misses an echo (any of them coming back then
// shows events reach the queue again): its tables are polled anyway, and
// events wait in a queue that cannot be read.
func (h *health) expect(e echo) {
	if !h.healthy() && h.missed == nil {
		return
	}
	if _, ok := h.expected[e.key()]; !ok && len(h.expected) < remembered {
		h.expected[e.key()] = e
	}
}

// hear records the event of a call that changed a table: it meets the
// expected call of that very table and call, or the call under way it
// echoes. Meeting the missing echo, or one expected since, puts the feed
// back to Events. An event that meets nothing leaves nothing behind. It
// returns true when the mode changed.
func (h *health) hear(now time.Time, e echo) bool {
	key := e.key()
	if h.underway[key] > 0 {
		h.early[key] = now
	}
	_, expected := h.expected[key]
	delete(h.expected, key)
	if !expected && (h.missed == nil || h.missed.key() != key) {
		return false
	}
	return h.met(now)
}

// met is an expected echo come back: while one is missing, it shows that
// Tether's events reach the queue again. The calls expected while it was
// missing are dropped: their events may have been lost with the rule, and
// waiting for them would fail the feed again at once.
func (h *health) met(now time.Time) bool {
	if h.missed == nil {
		return false
	}
	h.missed = nil
	clear(h.expected)
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

func (h *health) set(now time.Time, mode, reason, message string) bool {
	changed := h.mode != mode
	if changed {
		h.since = now
	}
	h.mode, h.reason, h.message = mode, reason, message
	if !h.healthy() && h.missed == nil {
		clear(h.expected)
	}
	return changed
}

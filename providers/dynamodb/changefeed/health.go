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
)

// health is a feed's mode and why. Its methods take the time, so that the
// rules can be tested without waiting.
type health struct {
	mode, reason, message string
	since                 time.Time
	// lastAnswer is when SQS last answered a ReceiveMessage.
	lastAnswer time.Time
	// lastEvent is when the last event about one of Tether's tables came.
	lastEvent time.Time
}

func startingHealth(now time.Time) health {
	return health{mode: awsv1alpha1.ChangeEventsModePolling, reason: ReasonStarting,
		message: "reading the queue for the first time; until it answers, tables are read every poll interval", since: now}
}

// healthy says whether the feed covers its tables.
func (h *health) healthy() bool { return h.mode == awsv1alpha1.ChangeEventsModeEvents }

// answered records an answer from SQS. It returns true when the mode
// changed.
func (h *health) answered(now time.Time) bool {
	h.lastAnswer = now
	return h.set(now, awsv1alpha1.ChangeEventsModeEvents, ReasonReceiving, "")
}

// failed records a call that failed. It returns true when the mode
// changed.
func (h *health) failed(now time.Time, reason, message string) bool {
	return h.set(now, awsv1alpha1.ChangeEventsModePolling, reason, message)
}

// check fails a feed SQS has not answered within answerWindow (a call
// that hangs, a reader that stopped). It returns true when the mode
// changed.
func (h *health) check(now time.Time) bool {
	if !h.healthy() || now.Sub(h.lastAnswer) <= answerWindow {
		return false
	}
	return h.failed(now, ReasonNoAnswer, fmt.Sprintf("SQS has not answered a ReceiveMessage since %s", h.lastAnswer.UTC().Format(time.RFC3339)))
}

func (h *health) set(now time.Time, mode, reason, message string) bool {
	changed := h.mode != mode
	if changed {
		h.since = now
	}
	h.mode, h.reason, h.message = mode, reason, message
	return changed
}

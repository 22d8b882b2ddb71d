package providers

import "unicode/utf8"

// MaxMessageBytes is the longest message Tether writes into a condition or
// a status field: the API's limit for a condition's message
// (metav1.Condition, maxLength 32768). Messages carry what a backend said,
// which a bad backend may make as long as it likes.
const MaxMessageBytes = 32 * 1024

// MaxEventNoteBytes is the longest note Tether writes into an Event: the
// API server refuses an events.k8s.io/v1 Event whose note is longer ("the
// maximal length of the note is 1kB", the Event API reference:
// https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/),
// and a refused event is lost. A 20-light HueGroup's update names more.
const MaxEventNoteBytes = 1024

// Truncate keeps a message within MaxMessageBytes, cut at a character
// boundary and marked with "...". Every condition and status message goes
// through it.
func Truncate(s string) string { return cut(s, MaxMessageBytes) }

// TruncateNote keeps an event's note within MaxEventNoteBytes, cut as
// Truncate cuts. Every event goes through it (the reconciler's event sink).
func TruncateNote(s string) string { return cut(s, MaxEventNoteBytes) }

// cut is the one rule of both: at most limit bytes, cut at a character
// boundary (a message stays valid UTF-8) and marked with "..." when cut.
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit - len("...")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

package providers

import "unicode/utf8"

// MaxMessageBytes is the longest message Tether writes into a condition or
// a status field: the API's limit for a condition's message
// (metav1.Condition, maxLength 32768). Messages carry what a backend said,
// which a bad backend may make as long as it likes.
const MaxMessageBytes = 32 * 1024

// Truncate keeps a message within MaxMessageBytes, cut at a character
// boundary and marked with "...". Every condition and status message goes
// through it.
func Truncate(s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	cut := MaxMessageBytes - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

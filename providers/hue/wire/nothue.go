package wire

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
)

// An answer that is not Hue's is named by what HTTP says of it, its status
// and content type, never by its body. spec.address can point anywhere the
// manager reaches (an internal service's admin page, a metadata endpoint),
// and the error ends up in the HueBridge's condition, its events and logs:
// quoting the body would hand whatever that service answers to whoever can
// read the HueBridge. A bridge's own error descriptions (the v1 error
// array, CLIP v2's errors[].description) are Hue's answer and are kept,
// with the username hidden (redact).

// maxContentTypeLen bounds the content type quoted in an error.
const maxContentTypeLen = 64

// notHueAnswer is the error of an answer that is not JSON at all.
func notHueAnswer(status int, contentType string) error {
	return &ProtocolError{Detail: fmt.Sprintf("HTTP %d, %s, that is not a Hue answer (its body is not shown)", status, describeContentType(contentType))}
}

// otherJSON is the error of a JSON answer of another shape than the Hue
// answer the call expects.
func otherJSON(status int, what string) error {
	return &ProtocolError{Detail: fmt.Sprintf("HTTP %d, JSON that is not %s (its body is not shown)", status, what)}
}

// describeContentType is the media type alone (its parameters are the
// server's to fill), bounded.
func describeContentType(ct string) string {
	if ct == "" {
		return "no content type"
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "an unreadable content type"
	}
	return fmt.Sprintf("content type %.*q", maxContentTypeLen, mt)
}

// checkJSON refuses an answer that is not JSON, before anything reads it.
// An empty answer passes: callers that need a body say so.
func checkJSON(status int, contentType string, body []byte) error {
	if len(body) == 0 || json.Valid(body) {
		return nil
	}
	return notHueAnswer(status, contentType)
}

// checkJSONOr is the error of an answer that could not be decoded: not
// JSON at all, or JSON of another shape than what.
func checkJSONOr(res *http.Response, raw []byte, what string) error {
	if err := checkJSON(res.StatusCode, res.Header.Get("Content-Type"), raw); err != nil {
		return err
	}
	return otherJSON(res.StatusCode, what)
}

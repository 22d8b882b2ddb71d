package wire

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Every read from a bridge is bounded, so that a bad bridge, or a man in
// the middle, cannot make the manager (and every controller in it) run out
// of memory:
//   - an answer's body is read up to maxAnswerBytes, and one that is longer
//     is an error, not read whole and not cut short into JSON that half
//     decodes (readAnswer);
//   - an event-stream message (and so each of its lines) up to
//     maxEventBytes: past it the stream is dropped, and its status says why
//     (stream.go);
//   - answers are decoded into the types Tether reads, never into
//     map[string]any, which costs tens of times the bytes it decodes
//     (v2store.go), and the v2 store keeps only the resources its views read,
//     at most maxAnswerBytes of them;
//   - redirects are not followed (refuseRedirects): following one would
//     carry the username, in the path or the hue-application-key header,
//     to wherever it points, even plain http://. The only bridge known to
//     redirect is the Hue Bridge Pro, which answers plain HTTP with a 301
//     to https (zim514/script.service.hue #332); a client that follows it
//     turns the pairing POST into a GET (LedFx/LedFx PR #1856), so Tether
//     names the https address instead.
//
// What the bridge says ends up in conditions, events and status, each
// message cut to providers.MaxMessageBytes there.

const (
	// maxAnswerBytes bounds one answer: the largest is a CLIP v2 bridge's
	// GET /clip/v2/resource, every resource of a home, a few hundred KiB
	// for dozens of lights (aiohue's real-bridge fixture), so 8 MiB leaves
	// room for the largest installations.
	maxAnswerBytes = 8 << 20
	// maxEventBytes bounds one event-stream message: a bridge batches at
	// most a second of changes into one, a few KiB (Hue's CLIP v2
	// migration guide; docs/hue-behaviour.md, "Event stream").
	maxEventBytes = 1 << 20
)

// readAnswer reads an answer's body up to maxAnswerBytes.
func readAnswer(body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxAnswerBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxAnswerBytes {
		return nil, &ProtocolError{Detail: fmt.Sprintf("an answer larger than %d MiB, which no bridge sends: not read", maxAnswerBytes>>20)}
	}
	return raw, nil
}

// refuseRedirects is every bridge client's CheckRedirect: the redirect
// comes back as the answer, which refusedRedirect turns into an error.
func refuseRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// refusedRedirect is the error for an answer that is a redirect.
func refusedRedirect(res *http.Response) error {
	if res.StatusCode < 300 || res.StatusCode >= 400 {
		return nil
	}
	to := res.Header.Get("Location")
	hint := "Tether does not follow one (it would carry the username along)"
	if strings.HasPrefix(to, "https://") && res.Request != nil && res.Request.URL.Scheme == "http" {
		hint += "; a Hue Bridge Pro answers plain HTTP so: give its address without http:// to speak CLIP v2 over HTTPS"
	}
	return &ProtocolError{Detail: fmt.Sprintf("HTTP %d, a redirect to %.200q: %s", res.StatusCode, to, hint)}
}

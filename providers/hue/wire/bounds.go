package wire

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
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
	return readAnswerInto(nil, body)
}

// readAnswerInto reads an answer's body up to maxAnswerBytes into buf,
// which it grows only when the answer is longer.
func readAnswerInto(buf []byte, body io.Reader) ([]byte, error) {
	b := bytes.NewBuffer(buf)
	if _, err := b.ReadFrom(io.LimitReader(body, maxAnswerBytes+1)); err != nil {
		return nil, err
	}
	raw := b.Bytes()
	if len(raw) > maxAnswerBytes {
		return nil, &ProtocolError{Detail: fmt.Sprintf("an answer larger than %d MiB, which no bridge sends: not read", maxAnswerBytes>>20)}
	}
	return raw, nil
}

// answerSizes remembers how long the last answer to each GET was, so that
// the next is read into a buffer of that length at once. Read into a
// growing buffer, as io.ReadAll does, a poll of a bridge with 500 lights
// (a 440 KB answer) allocated about 1 MB every poll interval, half of all
// the poll allocated; read into one of the remembered length, it allocates
// the answer's length once. Only GETs are remembered: their paths are the
// client's own few (a command's path names one of many lights, and its
// answer is short). A length is what the bridge last sent, within
// maxAnswerBytes, and a shorter answer makes it shorter again.
type answerSizes struct {
	mu   sync.Mutex
	last map[string]int
}

// read reads the answer to method on path, into a buffer of the length the
// last answer to that GET had.
func (s *answerSizes) read(method, path string, body io.Reader) ([]byte, error) {
	if method != http.MethodGet {
		return readAnswer(body)
	}
	s.mu.Lock()
	last := s.last[path]
	s.mu.Unlock()
	// bytes.Buffer.ReadFrom wants MinRead bytes free before each read,
	// the last (which finds the end) included.
	raw, err := readAnswerInto(make([]byte, 0, last+bytes.MinRead), body)
	if err == nil {
		s.mu.Lock()
		if s.last == nil {
			s.last = map[string]int{}
		}
		s.last[path] = len(raw)
		s.mu.Unlock()
	}
	return raw, err
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

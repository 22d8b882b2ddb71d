package huesim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// How the bridge takes a v1 request (handlers.go routes them): the
// username check, the command wrapper (rate limit, decoding, answer) and
// the command log (requestlog.go).

// appendCommand adds a command to the log.
func (b *Bridge) appendCommand(c Command) {
	if c.Time.IsZero() {
		c.Time = time.Now()
	}
	b.mu.Lock()
	b.commands = append(b.commands, c)
	b.mu.Unlock()
}

// logged serves a command with its effect and its log entry as one step
// to the looks of lockView. The body is read before that step: a client
// slow to send its body holds up its own command only, not every other
// client's, as a bridge serving its connections apart would.
func (b *Bridge) logged(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		b.applying.Lock()
		defer b.applying.Unlock()
		h(w, r)
	}
}

// lockView locks the state for a look from outside the API (a test's, the
// control API's), after any command being applied is logged too.
func (b *Bridge) lockView() (unlock func()) {
	b.applying.RLock()
	b.mu.Lock()
	return func() {
		b.mu.Unlock()
		b.applying.RUnlock()
	}
}

// commandHandler handles a command body and returns the answer array.
type commandHandler func(r *http.Request, addr string, body map[string]json.RawMessage) []result

// command wraps a light or group command: the rate limit, JSON decoding,
// the answer and the command log.
func (b *Bridge) command(h commandHandler) http.HandlerFunc {
	return b.logged(func(w http.ResponseWriter, r *http.Request) {
		addr := resourcePath(r)
		raw, _ := io.ReadAll(r.Body)
		if !b.limits.allow(addr) {
			res := []result{failure(ErrInternal, addr, "Internal error, 503")}
			b.record(r, addr, raw, res)
			writeJSON(w, http.StatusServiceUnavailable, res)
			return
		}
		var body map[string]json.RawMessage
		var res []result
		applied := false
		if r.Method == http.MethodDelete && len(raw) == 0 {
			body = map[string]json.RawMessage{} // DELETE has no body
		}
		if body == nil && (json.Unmarshal(raw, &body) != nil || body == nil) {
			res = []result{failure(ErrInvalidJSON, "", "body contains invalid json")}
		} else {
			res, applied = h(r, addr, body), true
		}
		b.record(r, addr, raw, res)
		if applied {
			b.notify() // once logged, for subscribers as for a test's look
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// record appends a received command to the log.
func (b *Bridge) record(r *http.Request, addr string, raw []byte, res []result) {
	c := Command{Time: time.Now(), Method: r.Method, Path: addr}
	if json.Valid(raw) {
		c.Body = json.RawMessage(raw)
	}
	for _, x := range res {
		if e, ok := x["error"].(apiError); ok {
			c.Errors = append(c.Errors, e.Type)
		}
	}
	b.appendCommand(c)
}

// authed answers error 1 unless the path's username is on the whitelist.
func (b *Bridge) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		_, ok := b.users[r.PathValue("user")]
		b.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusOK, []result{unauthorized(resourcePath(r))})
			return
		}
		h(w, r)
	}
}

package huesim

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// Command is one state-changing request the bridge received.
type Command struct {
	Time   time.Time       `json:"time"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	// Errors are the error types the bridge answered (empty: all success).
	Errors []int `json:"errors,omitempty"`
}

// commandHandler handles a command body and returns the answer array.
type commandHandler func(r *http.Request, addr string, body map[string]json.RawMessage) []result

// command wraps a light or group command: the rate limit, JSON decoding,
// the answer and the command log.
func (b *Bridge) command(h commandHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
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
		if r.Method == http.MethodDelete && len(raw) == 0 {
			body = map[string]json.RawMessage{} // DELETE has no body
		}
		if body == nil && (json.Unmarshal(raw, &body) != nil || body == nil) {
			res = []result{failure(ErrInvalidJSON, "", "body contains invalid json")}
		} else {
			res = h(r, addr, body)
			b.notify()
		}
		b.record(r, addr, raw, res)
		writeJSON(w, http.StatusOK, res)
	}
}

func (b *Bridge) putLightState(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[r.PathValue("id")]
	if !ok {
		return []result{notAvailable("/lights/" + r.PathValue("id"))}
	}
	return applyState(&l.State, l.model(), l.strict, addr, body, lightCommand)
}

// putGroupAction applies the body to every light of the group (group 0: all
// lights), each as far as it can: lights that are off and not switched on
// keep their colour, and a bulb without an attribute ignores it, without
// error 201 or 6, as a real bridge does for groups. The answer is the
// group's, one entry per attribute.
func (b *Bridge) putGroupAction(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids, ok := b.groupLights(r.PathValue("id"))
	if !ok {
		return []result{notAvailable("/groups/" + r.PathValue("id"))}
	}
	if _, recall := body["scene"]; recall {
		return b.recallScene(r.PathValue("id"), addr, body)
	}
	for _, id := range ids {
		if l, ok := b.lights[id]; ok {
			applyState(&l.State, l.model(), l.strict, addr, body, groupAction)
		}
	}
	return applyState(&LightState{On: true}, Models[DefaultModel], false, addr, body, groupAction)
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
	b.mu.Lock()
	b.commands = append(b.commands, c)
	b.mu.Unlock()
}

package huesim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// How the bridge takes a CLIP v2 request (v2handlers.go): the application
// key, the concurrency limit, the answer envelope and the command log.

// v2MaxConcurrent is how many requests a bridge serves at once: "the bridge
// will deny more than 3 requests at the same time with a 429" (aiohue
// v2/__init__.py, which limits itself to 3 per host for that reason). The
// event stream is a separate long-lived connection and does not count.
const v2MaxConcurrent = 3

// v2Answer writes the v2 answer envelope (v2handlers.go describes it).
func v2Answer(w http.ResponseWriter, status int, data any, errs ...string) {
	list := make([]map[string]string, 0, len(errs))
	for _, e := range errs {
		list = append(list, map[string]string{"description": e})
	}
	if data == nil {
		data = []any{}
	}
	writeJSON(w, status, map[string]any{"errors": list, "data": data})
}

func v2Error(w http.ResponseWriter, status int, description string) {
	v2Answer(w, status, nil, description)
}

// v2Authed answers 403 without a known hue-application-key (aiohue reads a
// 403 on /clip/v2/resource as "a v2 bridge, not authorised"), and 429 to a
// fourth request at once (the event stream excepted).
func (b *Bridge) v2Authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		_, ok := b.users[r.Header.Get("hue-application-key")]
		b.mu.Unlock()
		if !ok {
			v2Error(w, http.StatusForbidden, "unauthorized user")
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/eventstream") {
			if b.v2InFlight.Add(1) > v2MaxConcurrent {
				b.v2InFlight.Add(-1)
				b.v2Refused.Add(1)
				w.WriteHeader(http.StatusTooManyRequests) // "a 429 carries no data" (huelog.app)
				return
			}
			defer b.v2InFlight.Add(-1)
		}
		h(w, r)
	}
}

// TooManyRequests counts the v2 requests refused with 429 for being past the
// bridge's concurrency or command budget.
func (b *Bridge) TooManyRequests() int { return int(b.v2Refused.Load()) }

// withType sets the path value "type" for a route whose type is fixed.
func withType(typ string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.SetPathValue("type", typ)
		h(w, r)
	}
}

// recordV2 logs a v2 command: its path, the v1 id of the light it was for,
// and the HTTP status it was answered with.
func (b *Bridge) recordV2(r *http.Request, raw []byte, lightID string, status int) {
	c := Command{Method: r.Method, Path: r.URL.Path, Light: lightID, Status: status}
	if json.Valid(raw) {
		c.Body = json.RawMessage(raw)
	}
	b.appendCommand(c)
}

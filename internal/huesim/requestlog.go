package huesim

import (
	"encoding/json"
	"net/http"
	"time"
)

// What the bridge records of the requests it receives, for tests to read:
// the command log (commands.go, v2request.go), the v1 requests of a bridge
// without v1 (v1off.go) and a Bridge Pro's plain-HTTP requests (pro.go).

// Command is one state-changing request the bridge received.
type Command struct {
	Time   time.Time       `json:"time"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	// Errors are the error types the bridge answered (empty: all success).
	Errors []int `json:"errors,omitempty"`
	// Light is the v1 id of the light a CLIP v2 command was for, and
	// Status the HTTP status it was answered with (v2 commands only).
	Light  string `json:"light,omitempty"`
	Status int    `json:"status,omitempty"`
}

// ForLight reports whether c is a light command (v1 or v2) for the bulb
// with v1 id id.
func (c Command) ForLight(id string) bool {
	return c.Path == "/lights/"+id+"/state" || (c.Light == id && c.Method == http.MethodPut)
}

// V1Request is one request the bridge received on a v1 path (/api...),
// the username written as {user} in Path.
type V1Request struct {
	Method, Path string
	// Refused: answered 404 because the v1 API is off.
	Refused bool
}

// PlainRequest is one request a Bridge Pro received over plain HTTP (and
// answered 301).
type PlainRequest struct{ Method, Path string }

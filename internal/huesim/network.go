package huesim

import (
	"net/http"
	"strings"
	"time"
)

// The network path to the bridge: taken off the network (Server.Offline),
// slowed (SetDelay), and what the gate in front of both APIs counts.

// OfflineMode is how the bridge is unreachable.
type OfflineMode string

const (
	// Refuse closes the listener: clients get "connection refused", as when
	// the bridge is unplugged and its address answers with a reset.
	Refuse OfflineMode = "refuse"
	// Hang accepts connections and never answers, as when the bridge is on
	// an unreachable network segment; only the client's deadline helps.
	Hang OfflineMode = "hang"
)

// connectivity is the state of the network path to the bridge.
type connectivity struct {
	hung  chan struct{} // closed when the bridge answers again
	hang  bool
	delay time.Duration
}

func newConnectivity() connectivity { return connectivity{hung: make(chan struct{})} }

// gate applies the simulated network conditions and counts GETs per path.
func (b *Bridge) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if presentsUsername(r) {
			b.credentialed.Add(1)
		}
		b.mu.Lock()
		hang, resumed, delay := b.conn.hang, b.conn.hung, b.conn.delay
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api") {
			b.gets[resourcePath(r)]++
		}
		if r.Method == http.MethodGet && (strings.HasPrefix(r.URL.Path, "/clip/v2") || strings.HasPrefix(r.URL.Path, "/eventstream")) {
			b.gets[r.URL.Path]++
		}
		b.mu.Unlock()
		if hang {
			select {
			case <-resumed:
			case <-r.Context().Done():
				return
			}
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// presentsUsername reports whether a request carries a username: in the
// v1 path (/api/<username>/...) or as CLIP v2's hue-application-key.
// Pairing (POST /api) and the public /api/config carry none.
func presentsUsername(r *http.Request) bool {
	if r.Header.Get("hue-application-key") != "" {
		return true
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok {
		return false
	}
	user, _, _ := strings.Cut(rest, "/")
	return user != "" && user != "config"
}

// CredentialedRequests counts the requests that carried a username (any,
// known to the bridge or not) since the bridge started: a test's proof that
// a client sent none to a bridge it must not trust.
func (b *Bridge) CredentialedRequests() int { return int(b.credentialed.Load()) }

package bench

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
)

// countingProxy stands in front of a simulated bridge and counts every
// request that reaches the bridge's address. Offline, it drops each
// connection without an answer (as an unplugged bridge behind a router
// would reset it), so the count includes the calls a real bridge would never
// see: what matters for backoff discipline is what the operator attempts.
type countingProxy struct {
	addr    string
	srv     *http.Server
	forward *httputil.ReverseProxy

	mu      sync.Mutex
	offline bool
	calls   map[string]int // "GET /api/<user>/lights" with the user elided
}

func newCountingProxy(target string) (*countingProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{addr: ln.Addr().String(), forward: httputil.NewSingleHostReverseProxy(u), calls: map[string]int{}}
	p.forward.ErrorLog = log.New(io.Discard, "", 0)
	p.srv = &http.Server{Handler: p}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *countingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.calls[r.Method+" "+elideUser(r.URL.Path)]++
	offline := p.offline
	p.mu.Unlock()
	if offline {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	p.forward.ServeHTTP(w, r)
}

// elideUser turns /api/<username>/lights/3/state into /lights/3/state.
func elideUser(path string) string {
	const prefix = "/api/"
	if len(path) <= len(prefix) || path[:len(prefix)] != prefix {
		return path
	}
	rest := path[len(prefix):]
	for i := 0; i < len(rest); i++ {
		if rest[i] == '/' {
			return rest[i:]
		}
	}
	return "/"
}

func (p *countingProxy) setOffline(off bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offline = off
}

// reset zeroes the counters and returns what they held.
func (p *countingProxy) reset() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.calls
	p.calls = map[string]int{}
	return out
}

func (p *countingProxy) close() { _ = p.srv.Close() }

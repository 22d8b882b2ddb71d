package huesim

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

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

// Server serves one Bridge's API on two TCP addresses, as a bridge serves
// port 80 and 443: the v1 API over plain HTTP, and the v1 and CLIP v2 APIs
// over HTTPS with the simulator's test certificate (v2tls.go). It can take
// the bridge off the network (Offline) and back (Online) on the same
// addresses.
type Server struct {
	*Bridge
	certs   *certs
	mu      sync.Mutex
	addr    string
	tlsAddr string
	srv     *http.Server
	tlsSrv  *http.Server
	// holds keep both ports while the bridge is offline (porthold_linux.go).
	holds []*portHold
	// serving counts the Serve loops; each returns once its listener's
	// socket is closed, which Go does only after Accept has returned.
	serving sync.WaitGroup
}

// Start serves a new bridge on addr ("127.0.0.1:0" picks a free port), and
// over HTTPS on a free port of the same host.
func Start(opts Options, addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	return StartTLS(opts, addr, net.JoinHostPort(host, "0"))
}

// StartTLS serves a new bridge on addr (HTTP) and tlsAddr (HTTPS).
func StartTLS(opts Options, addr, tlsAddr string) (*Server, error) {
	b := New(opts)
	c, err := newCerts(b.opts.certificateName(), b.opts.Pro, b.opts.ProChain)
	if err != nil {
		return nil, err
	}
	s := &Server{Bridge: b, certs: c, addr: addr, tlsAddr: tlsAddr}
	if err := s.listen(); err != nil {
		return nil, err
	}
	return s, nil
}

// Addr is host:port of the API listener.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// URL is the bridge's base URL (http://host:port).
func (s *Server) URL() string { return "http://" + s.Addr() }

// TLSAddr is host:port of the HTTPS listener.
func (s *Server) TLSAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tlsAddr
}

// TLSURL is the bridge's HTTPS base URL (https://host:port).
func (s *Server) TLSURL() string { return "https://" + s.TLSAddr() }

func (s *Server) listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return nil
	}
	ln, err := listenShared(s.addr)
	if err != nil {
		return err
	}
	tlsLn, err := listenShared(s.tlsAddr)
	if err != nil {
		_ = ln.Close()
		return err
	}
	// Keep the ports when they were :0.
	s.addr, s.tlsAddr = ln.Addr().String(), tlsLn.Addr().String()
	s.srv = &http.Server{Handler: s.plainHandler(), ReadHeaderTimeout: 10 * time.Second}
	s.tlsSrv = &http.Server{Handler: s.HandlerTLS(), ReadHeaderTimeout: 10 * time.Second,
		// A client refusing the test certificate is what trust tests do.
		ErrorLog:  log.New(io.Discard, "", 0),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{s.certs.leaf}, MinVersion: tls.VersionTLS12}}
	// Serve ends with ErrServerClosed when Offline or Close stop it.
	s.serving.Add(2)
	go func(srv *http.Server) { defer s.serving.Done(); _ = srv.Serve(ln) }(s.srv)
	go func(srv *http.Server) { defer s.serving.Done(); _ = srv.ServeTLS(tlsLn, "", "") }(s.tlsSrv)
	s.releasePorts()
	return nil
}

// Offline takes the bridge off the network in the given mode.
func (s *Server) Offline(mode OfflineMode) {
	defer s.notify()
	if mode == Hang {
		s.Bridge.mu.Lock()
		if !s.conn.hang {
			s.conn.hang = true
			s.conn.hung = make(chan struct{})
		}
		s.Bridge.mu.Unlock()
		return
	}
	s.stopServing(true)
}

// stopServing closes both listeners, keeping their ports if keepPorts.
func (s *Server) stopServing(keepPorts bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return
	}
	if keepPorts {
		s.holdPorts()
	}
	// Also drops kept-alive client connections and event streams.
	_ = s.srv.Close()
	_ = s.tlsSrv.Close()
	s.srv, s.tlsSrv = nil, nil
	// Offline means refused from now on, not after the Accept loops wake.
	s.serving.Wait()
}

// holdPorts binds a hold to each port before its listener closes. Should a
// hold fail, the port is simply released, as it always was elsewhere.
func (s *Server) holdPorts() {
	for _, addr := range []string{s.addr, s.tlsAddr} {
		if h, err := holdPort(addr); err == nil {
			s.holds = append(s.holds, h)
		}
	}
}

func (s *Server) releasePorts() {
	for _, h := range s.holds {
		h.release()
	}
	s.holds = nil
}

// Online puts the bridge back on the network on the same address.
func (s *Server) Online() error {
	defer s.notify()
	s.Bridge.mu.Lock()
	if s.conn.hang {
		s.conn.hang = false
		close(s.conn.hung)
	}
	s.Bridge.mu.Unlock()
	return s.listen()
}

// Close stops serving for good, releasing requests held by Hang.
func (s *Server) Close() {
	s.Bridge.mu.Lock()
	if s.conn.hang {
		s.conn.hang = false
		close(s.conn.hung)
	}
	s.Bridge.mu.Unlock()
	s.stopServing(false)
	s.mu.Lock()
	s.releasePorts()
	s.mu.Unlock()
	s.notify()
}

package huesim

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

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

// plainHandler serves the plain-HTTP port: the v1 API, or on a Pro a 301
// to the same path at the HTTPS port (the simulator's HTTPS port stands
// for 443), as pro.go's sources describe the Pro.
func (s *Server) plainHandler() http.Handler {
	if !s.opts.Pro {
		return s.Handler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Bridge.mu.Lock()
		s.plain = append(s.plain, PlainRequest{Method: r.Method, Path: withoutUser(r.URL.Path)})
		s.Bridge.mu.Unlock()
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		_, port, _ := net.SplitHostPort(s.TLSAddr())
		http.Redirect(w, r, "https://"+net.JoinHostPort(host, port)+r.URL.RequestURI(), http.StatusMovedPermanently)
	})
}

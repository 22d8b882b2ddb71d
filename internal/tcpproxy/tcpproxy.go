// Package tcpproxy forwards TCP connections to a target, TLS passing
// through untouched, and counts them; taken offline it closes every
// connection and refuses new ones, as a bridge that left the network. It
// counts what a TLS client attempts where an HTTP proxy could not look.
package tcpproxy

import (
	"io"
	"net"
	"sync"
)

// Proxy is a counting TCP proxy on 127.0.0.1.
type Proxy struct {
	ln net.Listener

	mu      sync.Mutex
	target  string
	offline bool
	count   int
	conns   map[net.Conn]struct{}
}

// New listens on a free local port and forwards to target.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.count++
		offline := p.offline
		if !offline {
			p.conns[c] = struct{}{}
		}
		p.mu.Unlock()
		if offline {
			_ = c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *Proxy) pipe(c net.Conn) {
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		_ = c.Close()
	}()
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// SetOffline switches the proxy (offline closes every open connection) and
// returns the connections attempted since the last switch.
func (p *Proxy) SetOffline(off bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offline = off
	if off {
		for c := range p.conns {
			_ = c.Close()
		}
	}
	n := p.count
	p.count = 0
	return n
}

// Retarget closes every open connection and forwards new ones to target:
// another server answering at the proxy's address, as a man in the middle
// or a replaced device would.
func (p *Proxy) Retarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
	for c := range p.conns {
		_ = c.Close()
	}
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.SetOffline(true)
}

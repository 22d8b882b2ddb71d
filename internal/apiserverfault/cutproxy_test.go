package apiserverfault

import (
	"io"
	"net"
	"sync"
	"time"
)

// cutProxy forwards TCP connections to the API server. Cut closes every
// connection it carries and turns new ones away (accepted and closed at once,
// so the client sees its connection drop) until Restore. TLS stays end to end:
// the proxy sees only bytes.
type cutProxy struct {
	target string
	ln     net.Listener

	mu          sync.Mutex
	cut         bool
	open        map[net.Conn]struct{}
	turnedAway  int // connections refused while cut
	failedDials int // connections the API server did not answer (it is down)
}

func newCutProxy(target string) (*cutProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &cutProxy{target: target, ln: ln, open: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

func (p *cutProxy) Addr() string { return p.ln.Addr().String() }

func (p *cutProxy) Close() {
	_ = p.ln.Close()
	p.Cut()
}

// Cut drops every connection and refuses new ones.
func (p *cutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.open {
		_ = c.Close()
	}
}

// Restore lets connections through again.
func (p *cutProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// TurnedAway is how many connections were refused while cut.
func (p *cutProxy) TurnedAway() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.turnedAway
}

// FailedDials is how many connections found the API server down.
func (p *cutProxy) FailedDials() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failedDials
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.carry(c)
	}
}

func (p *cutProxy) carry(client net.Conn) {
	if !p.admit(client) {
		return
	}
	server, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		p.mu.Lock()
		p.failedDials++
		p.mu.Unlock()
		p.drop(client)
		return
	}
	// A cut between the admission and the dial must drop this one too.
	if !p.admit(server) {
		p.drop(client)
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		// Either side ending ends both, as a dead peer would.
		p.drop(dst)
		p.drop(src)
	}
	go pipe(server, client)
	go pipe(client, server)
	wg.Wait()
}

// admit tracks c, or closes it and counts it when the proxy is cut.
func (p *cutProxy) admit(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		p.turnedAway++
		_ = c.Close()
		return false
	}
	p.open[c] = struct{}{}
	return true
}

func (p *cutProxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.open, c)
	p.mu.Unlock()
	_ = c.Close()
}

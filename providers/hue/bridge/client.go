package bridge

import (
	"context"
	"sync"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// clientRef is the client the session speaks through. The registry
// switches it when the HueBridge it came from is deleted or changed, which
// ends the old client's event stream.
type clientRef struct {
	mu        sync.Mutex
	client    wire.Client
	endStream context.CancelFunc // ends the event stream of client
}

func (r *clientRef) get() wire.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.client
}

func (r *clientRef) use(c wire.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != c && r.endStream != nil {
		r.endStream() // the stream of the old client: the streamer reconnects with the new one
	}
	r.client = c
}

// streaming records how to end c's stream, unless the session switched to
// another client meanwhile.
func (r *clientRef) streaming(c wire.Client, end context.CancelFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != c {
		return false
	}
	r.endStream = end
	return true
}

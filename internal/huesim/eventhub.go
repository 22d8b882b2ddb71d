package huesim

import "sync"

// The event stream's bookkeeping: its clients and the view its last message
// carried. The stream itself, and the sources for it, are v2events.go.

// eventHub fans the bridge's changes out to its event streams.
type eventHub struct {
	mu      sync.Mutex
	clients map[*streamClient]struct{}
	// last is the v2 view as of the last message, by resource id.
	last    map[string]resource
	running bool
	stop    chan struct{}
	// Test controls: hung streams stay open and deliver nothing; the next
	// dropNew streams are closed right after ": hi".
	hung    bool
	dropNew int
	// flood is the size of the message every new stream gets after
	// ": hi" (0: none), for tests of a hostile bridge.
	flood int
	// seq numbers the messages within a second, for their ids.
	seqSecond int64
	seq       int
	messages  int
}

type streamClient struct {
	out  chan []byte
	gone chan struct{}
	once sync.Once
}

func (c *streamClient) close() { c.once.Do(func() { close(c.gone) }) }

package hue

import (
	"sync"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// discovered remembers the addresses discovery found, by bridge id, so a
// bridge is searched for again only when it cannot be reached.
type discovered struct {
	mu    sync.Mutex
	addrs map[string]string
}

func (d *discovered) get(id string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.addrs[wire.NormalizeBridgeID(id)]
	return a, ok
}

func (d *discovered) set(id, addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.addrs == nil {
		d.addrs = map[string]string{}
	}
	d.addrs[wire.NormalizeBridgeID(id)] = addr
}

func (d *discovered) forget(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.addrs, wire.NormalizeBridgeID(id))
}

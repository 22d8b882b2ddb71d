package hue

import (
	"context"
	"fmt"
	"sync"
	"time"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// discoveryRetry is how long a HueBridge whose bridge was not found waits
// before it is searched for again.
const discoveryRetry = 30 * time.Second

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

// address is where the HueBridge's bridge is: spec.address, or the address
// mDNS found for spec.bridgeID. A bridge at a discovered address is looked
// for again when it cannot be bound (it may have a new DHCP lease).
func (r *Registry) address(ctx context.Context, b *huev1alpha1.HueBridge) (string, error) {
	if b.Spec.Address != "" {
		return b.Spec.Address, nil
	}
	if addr, ok := r.found.get(b.Spec.BridgeID); ok {
		return addr, nil
	}
	addr, err := r.settings.Discover(ctx, b.Spec.BridgeID)
	switch {
	case err != nil:
		return "", providers.RetryAfter(discoveryRetry, ReasonBridgeNotDiscovered, fmt.Errorf(
			"cannot search for bridge %s by mDNS (%w): multicast is not available here; set spec.address", b.Spec.BridgeID, err))
	case addr == "":
		return "", providers.RetryAfter(discoveryRetry, ReasonBridgeNotDiscovered, fmt.Errorf(
			"no bridge with id %s answered an mDNS search for %s.local on this network: where multicast does not reach "+
				"(most cluster networks), set spec.address", b.Spec.BridgeID, wire.MDNSService))
	}
	r.log.Info("found the bridge by mDNS", "hueBridge", b.Name, "bridgeID", b.Spec.BridgeID, "address", addr)
	r.found.set(b.Spec.BridgeID, addr)
	return addr, nil
}

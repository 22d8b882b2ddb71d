package hue

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/mdns"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Discovery: a HueBridge with spec.bridgeID and no address is found on the
// local network by mDNS: bridges announce _hue._tcp.local with a TXT record
// bridgeid=<id> (Home Assistant's zeroconf step reads it). The library is
// hashicorp/mdns (maintained, small, client and responder, used by Consul
// and Nomad). Multicast reaches only the local network segment: in most
// clusters a pod's network does not carry it (no hostNetwork), so the
// search finds nothing and the HueBridge says so, asking for
// spec.address; Tether does not ask Hue's cloud (discovery.meethue.com)
// for addresses.

// DefaultDiscoveryTimeout is how long an mDNS search listens for answers,
// and discoveryRetry how long a HueBridge whose bridge was not found waits
// before it is searched for again.
const (
	DefaultDiscoveryTimeout = 3 * time.Second
	discoveryRetry          = 30 * time.Second
)

// ReasonBridgeNotDiscovered: no bridge with the HueBridge's id answered.
const ReasonBridgeNotDiscovered = "BridgeNotDiscovered"

// hueService is the bridges' mDNS service.
const hueService = "_hue._tcp"

// Discover finds a bridge by id; it returns host:port.
type Discover func(ctx context.Context, bridgeID string) (string, error)

// DiscoverMDNS searches the local network for the bridge with id bridgeID
// for timeout, on every multicast interface (iface nil) or one.
func DiscoverMDNS(timeout time.Duration, iface *net.Interface) Discover {
	if timeout <= 0 {
		timeout = DefaultDiscoveryTimeout
	}
	return func(ctx context.Context, bridgeID string) (string, error) {
		entries := make(chan *mdns.ServiceEntry, 16)
		found := make(chan string, 1)
		go func() {
			for e := range entries {
				if addr, ok := matchBridge(e, bridgeID); ok {
					select {
					case found <- addr:
					default:
					}
				}
			}
		}()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- mdns.QueryContext(ctx, &mdns.QueryParam{Service: hueService, Domain: "local", Timeout: timeout,
				Entries: entries, Interface: iface, DisableIPv6: true, Logger: log.New(io.Discard, "", 0)})
			close(entries)
		}()
		select {
		case addr := <-found:
			cancel()
			<-done
			return addr, nil
		case err := <-done:
			select {
			case addr := <-found:
				return addr, nil
			default:
			}
			if err != nil {
				return "", fmt.Errorf("mDNS search for %s: %w", hueService, err)
			}
			return "", nil
		}
	}
}

// matchBridge reads an answer: the bridge's address when its TXT bridgeid
// is the one searched for.
func matchBridge(e *mdns.ServiceEntry, bridgeID string) (string, bool) {
	want := normalizeBridgeID(bridgeID)
	for _, f := range e.InfoFields {
		k, v, _ := strings.Cut(f, "=")
		if strings.EqualFold(k, "bridgeid") && normalizeBridgeID(v) == want && e.AddrV4 != nil && e.Port > 0 {
			return net.JoinHostPort(e.AddrV4.String(), strconv.Itoa(e.Port)), true
		}
	}
	return "", false
}

// discovered remembers the addresses discovery found, by bridge id, so a
// bridge is searched for again only when it cannot be reached.
type discovered struct {
	mu    sync.Mutex
	addrs map[string]string
}

func (d *discovered) get(id string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.addrs[normalizeBridgeID(id)]
	return a, ok
}

func (d *discovered) set(id, addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.addrs == nil {
		d.addrs = map[string]string{}
	}
	d.addrs[normalizeBridgeID(id)] = addr
}

func (d *discovered) forget(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.addrs, normalizeBridgeID(id))
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
				"(most cluster networks), set spec.address", b.Spec.BridgeID, hueService))
	}
	r.log.Info("found the bridge by mDNS", "hueBridge", b.Name, "bridgeID", b.Spec.BridgeID, "address", addr)
	r.found.set(b.Spec.BridgeID, addr)
	return addr, nil
}

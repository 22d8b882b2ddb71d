package wire

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/mdns"
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

// DefaultDiscoveryTimeout is how long an mDNS search listens for answers.
const DefaultDiscoveryTimeout = 3 * time.Second

// MDNSService is the bridges' mDNS service.
const MDNSService = "_hue._tcp"

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
			done <- mdns.QueryContext(ctx, &mdns.QueryParam{Service: MDNSService, Domain: "local", Timeout: timeout,
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
				return "", fmt.Errorf("mDNS search for %s: %w", MDNSService, err)
			}
			return "", nil
		}
	}
}

// matchBridge reads an answer: the bridge's address when its TXT bridgeid
// is the one searched for.
func matchBridge(e *mdns.ServiceEntry, bridgeID string) (string, bool) {
	want := NormalizeBridgeID(bridgeID)
	for _, f := range e.InfoFields {
		k, v, _ := strings.Cut(f, "=")
		if strings.EqualFold(k, "bridgeid") && NormalizeBridgeID(v) == want && e.AddrV4 != nil && e.Port > 0 {
			return net.JoinHostPort(e.AddrV4.String(), strconv.Itoa(e.Port)), true
		}
	}
	return "", false
}

package huesim

import (
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"

	"github.com/hashicorp/mdns"
)

// AnnounceMDNS answers mDNS searches for the bridge as a real bridge does:
// service _hue._tcp.local on its HTTPS port, with TXT records bridgeid (the
// id in lower case, which Home Assistant's zeroconf step reads) and
// modelid (BSB003 on a Pro, whose TXT says so: ebaauw/homebridge-hue
// #1219), from ips (default 127.0.0.1), on iface (nil: every multicast
// interface). It returns a function that stops answering.
func (s *Server) AnnounceMDNS(iface *net.Interface, ips ...net.IP) (func(), error) {
	if len(ips) == 0 {
		ips = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	_, port, err := net.SplitHostPort(s.TLSAddr())
	if err != nil {
		return nil, err
	}
	p, _ := strconv.Atoi(port)
	id := strings.ToLower(s.BridgeID())
	svc, err := mdns.NewMDNSService("Philips Hue - "+strings.ToUpper(id[len(id)-6:]), "_hue._tcp", "local.",
		"huesim-"+id+".local.", p, ips, []string{"bridgeid=" + id, "modelid=" + s.opts.bridgeProduct().ModelID})
	if err != nil {
		return nil, fmt.Errorf("mDNS service: %w", err)
	}
	srv, err := mdns.NewServer(&mdns.Config{Zone: svc, Iface: iface, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		return nil, fmt.Errorf("mDNS responder: %w", err)
	}
	return func() { _ = srv.Shutdown() }, nil
}

// BridgeID is the id the bridge reports.
func (b *Bridge) BridgeID() string { return b.opts.BridgeID }

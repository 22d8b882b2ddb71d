// Command huesim runs the Philips Hue bridge simulator: the v1 REST API on
// --listen, the v1 and CLIP v2 APIs (with the event stream) over HTTPS on
// --listen-tls with a test CA of its own (--ca-out writes it, for a
// HueBridge's caBundle), an mDNS announcement with --mdns, the test controls (link button, offline, unreachable bulbs,
// command log) on --control, which must be a loopback address, and the
// demo's live page of the bulbs on --web-listen.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tether-dev/tether/internal/huesim"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address of the bridge's v1 API")
	listenTLS := flag.String("listen-tls", "127.0.0.1:8443", "address of the bridge's HTTPS API (v1 and CLIP v2)")
	caOut := flag.String("ca-out", "", "write the simulator's test CA (PEM) to this file: what a HueBridge's spec.caBundle holds")
	announce := flag.Bool("mdns", false, "answer mDNS searches for _hue._tcp as a bridge does (needs multicast)")
	bridgeID := flag.String("bridge-id", "", "the bridge id (16 hex characters; random when empty)")
	control := flag.String("control", "127.0.0.1:8081", "loopback address of the test controls")
	lights := flag.String("lights", "hallway,kitchen:LTW001,living room:LLC010",
		"comma-separated bulbs, each a name with an optional :MODEL ("+strings.Join(huesim.ModelIDs(), ", ")+"; default "+huesim.DefaultModel+")")
	username := flag.String("username", "", "a username accepted without pairing (empty: pair with the link button)")
	web := flag.String("web-listen", "127.0.0.1:8000", `address of the live web page of the bulbs ("" disables it)`)
	pro := flag.Bool("pro", false, "be a Hue Bridge Pro (BSB003): HTTPS only (plain HTTP answered 301), its identity, certificate shape and newer resource types")
	rate := flag.Float64("commands-per-second", 10, "light commands per second before the bridge answers 503 / error 901")
	flag.Parse()

	names, models, err := splitLights(*lights)
	if err != nil {
		log.Fatalf("huesim: -lights: %v", err)
	}
	opts := huesim.Options{Lights: names, Models: models, CommandsPerSecond: *rate, BridgeID: strings.ToUpper(*bridgeID), Pro: *pro}
	if *username != "" {
		opts.Usernames = []string{*username}
	}
	s, err := huesim.StartTLS(opts, *listen, *listenTLS)
	if err != nil {
		log.Fatalf("huesim: %v", err)
	}
	if *caOut != "" {
		if err := os.WriteFile(*caOut, s.CACertPEM(), 0o644); err != nil {
			log.Fatalf("huesim: -ca-out: %v", err)
		}
	}
	if *announce {
		stopMDNS, err := s.AnnounceMDNS(nil)
		if err != nil {
			log.Fatalf("huesim: -mdns: %v", err)
		}
		defer stopMDNS()
	}
	ctl, stop, err := s.ServeControl(*control)
	if err != nil {
		log.Fatalf("huesim: control API: %v", err)
	}
	fmt.Printf("huesim: bridge %s: v1 API on %s, v1 and CLIP v2 on %s (certificate name %s), controls on %s, %d lights\n",
		s.BridgeID(), s.URL(), s.TLSURL(), s.CertificateName(), ctl, len(opts.Lights))
	stopWeb := func() {}
	if *web != "" {
		addr, stopFn, err := s.ServeWeb(*web, huesim.WebOptions{})
		if err != nil {
			log.Fatalf("huesim: web page: %v", err)
		}
		stopWeb = stopFn
		fmt.Printf("huesim: live page on http://%s/\n", addr)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	stopWeb()
	stop()
	s.Close()
}

// splitLights reads "name[:MODEL],..." into names and their models.
func splitLights(csv string) ([]string, map[string]string, error) {
	var names []string
	models := map[string]string{}
	for _, entry := range strings.Split(csv, ",") {
		name, model, _ := strings.Cut(strings.TrimSpace(entry), ":")
		if name == "" {
			continue
		}
		if _, known := huesim.Models[model]; model != "" && !known {
			return nil, nil, fmt.Errorf("bulb %q: unknown model %q", name, model)
		}
		names = append(names, name)
		models[name] = model
	}
	return names, models, nil
}

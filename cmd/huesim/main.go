// Command huesim runs the Philips Hue bridge simulator: the v1 REST API on
// --listen, the test controls (link button, offline, unreachable bulbs,
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
	control := flag.String("control", "127.0.0.1:8081", "loopback address of the test controls")
	lights := flag.String("lights", "hallway,kitchen,living room", "comma-separated names of the bulbs")
	username := flag.String("username", "", "a username accepted without pairing (empty: pair with the link button)")
	web := flag.String("web-listen", "127.0.0.1:8000", `address of the live web page of the bulbs ("" disables it)`)
	rate := flag.Float64("commands-per-second", 10, "light commands per second before the bridge answers 503 / error 901")
	flag.Parse()

	opts := huesim.Options{Lights: splitNames(*lights), CommandsPerSecond: *rate}
	if *username != "" {
		opts.Usernames = []string{*username}
	}
	s, err := huesim.Start(opts, *listen)
	if err != nil {
		log.Fatalf("huesim: %v", err)
	}
	ctl, stop, err := s.ServeControl(*control)
	if err != nil {
		log.Fatalf("huesim: control API: %v", err)
	}
	fmt.Printf("huesim: bridge API on %s, controls on %s, %d lights\n", s.URL(), ctl, len(opts.Lights))
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

func splitNames(csv string) []string {
	var names []string
	for _, n := range strings.Split(csv, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

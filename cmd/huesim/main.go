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
	lights := flag.String("lights", "hallway,kitchen:LTW001,living room:LLC010",
		"comma-separated bulbs, each a name with an optional :MODEL ("+strings.Join(huesim.ModelIDs(), ", ")+"; default "+huesim.DefaultModel+")")
	username := flag.String("username", "", "a username accepted without pairing (empty: pair with the link button)")
	web := flag.String("web-listen", "127.0.0.1:8000", `address of the live web page of the bulbs ("" disables it)`)
	rate := flag.Float64("commands-per-second", 10, "light commands per second before the bridge answers 503 / error 901")
	flag.Parse()

	names, models, err := splitLights(*lights)
	if err != nil {
		log.Fatalf("huesim: -lights: %v", err)
	}
	opts := huesim.Options{Lights: names, Models: models, CommandsPerSecond: *rate}
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

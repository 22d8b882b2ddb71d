package demo

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/tether-dev/tether/internal/huesim"
)

// pageHTML is the demo's page: one file with inline CSS and JS, so there is
// nothing to build and nothing to fetch (the talk may be offline).
//
//go:embed web/index.html
var pageHTML []byte

// heartbeat keeps an idle event stream open through proxies and browsers.
const heartbeat = 15 * time.Second

// page serves what the audience looks at:
//
//	GET  /                  the page
//	GET  /bridge/...        the simulator's bulbs (huesim's WebHandler)
//	GET  /cluster/events    server-sent events: "cluster" (Tether's objects,
//	                        tables as DynamoDB reports them) and "timeline"
//	GET  /cluster/state.json the same once
//	POST /hue-app/lights/{name}  {"on": false, "bri": 25}: change a bulb by
//	                        hand, as the phone app would
//
// The cluster part is read-only: the browser never gets a kubeconfig, and
// nothing it sends reaches the API server. The Hue app control changes the
// simulated bulb only, and only as the page itself asks
// (huesim.GuardPage: application/json from the page's own origin, and no
// Host but the page's address, so neither another site open in the
// presenter's browser nor a DNS rebinding reaches it).
type page struct {
	bridge   *huesim.Server
	cluster  *clusterView
	timeline *timeline
	changed  *notifier
}

func (p *page) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(pageHTML)
	})
	mux.Handle("/bridge/", http.StripPrefix("/bridge", p.bridge.WebHandler(huesim.WebOptions{})))
	mux.HandleFunc("GET /cluster/events", p.events)
	mux.HandleFunc("GET /cluster/state.json", func(w http.ResponseWriter, r *http.Request) {
		st, err := p.state(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("POST /hue-app/lights/{name}", p.hueApp)
	return huesim.GuardPage(mux)
}

// pageState is /cluster/state.json: both events' data.
type pageState struct {
	Cluster  clusterState `json:"cluster"`
	Timeline []entry      `json:"timeline"`
}

func (p *page) state(ctx context.Context) (pageState, error) {
	st, err := p.cluster.snapshot(ctx)
	return pageState{Cluster: st, Timeline: p.timeline.list()}, err
}

// events streams the cluster to one page until it goes away.
func (p *page) events(w http.ResponseWriter, r *http.Request) {
	changed, unsubscribe := p.changed.subscribe()
	defer unsubscribe()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	send := func(event string, data []byte) error {
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return
	}
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	var lastCluster, lastTimeline []byte
	for {
		st, err := p.state(r.Context())
		if err != nil {
			return
		}
		cluster, _ := json.Marshal(st.Cluster)
		tl, _ := json.Marshal(st.Timeline)
		if !bytes.Equal(cluster, lastCluster) {
			if send("cluster", cluster) != nil {
				return
			}
			lastCluster = cluster
		}
		if !bytes.Equal(tl, lastTimeline) {
			if send("timeline", tl) != nil {
				return
			}
			lastTimeline = tl
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// handChange is the Hue app control's body: what to set, as the app does.
type handChange struct {
	On  *bool `json:"on"`
	Bri *int  `json:"bri"`
}

func (p *page) hueApp(w http.ResponseWriter, r *http.Request) {
	var c handChange
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10)).Decode(&c); err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if c.Bri != nil && (*c.Bri < 1 || *c.Bri > 254) {
		http.Error(w, "bri must be 1 to 254", http.StatusBadRequest)
		return
	}
	l, ok := p.bridge.LightByName(r.PathValue("name"))
	if !ok {
		http.Error(w, "no such bulb", http.StatusNotFound)
		return
	}
	err := p.bridge.ChangeLight(l.ID, func(st *huesim.LightState) {
		if c.On != nil {
			st.On = *c.On
		}
		if c.Bri != nil {
			st.Bri = *c.Bri
		}
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]string{"result": "changed " + l.Name})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// servePage starts the page on addr and returns its address and a stop
// function.
func servePage(addr string, p *page) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	// No WriteTimeout: event streams stay open for the whole talk.
	srv := &http.Server{Handler: p.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}

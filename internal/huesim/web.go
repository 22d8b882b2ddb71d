package huesim

import (
	"context"
	_ "embed"
	"net"
	"net/http"
	"time"
)

// indexHTML is the demo page: one file with inline CSS and JS, so there is
// no front-end build and nothing to fetch (the talk may be offline).
//
//go:embed web/index.html
var indexHTML []byte

// WebOptions configures the live page.
type WebOptions struct {
	// Tables lists DynamoDB tables for the page's side panel; nil hides it.
	Tables func(context.Context) ([]TableInfo, error)
	// TablesEvery is how often Tables is polled per open page; default 3s.
	TablesEvery time.Duration
	// Heartbeat is how often an idle event stream sends a comment, so
	// proxies and browsers keep it open; default 15s.
	Heartbeat time.Duration
}

func (o WebOptions) withDefaults() WebOptions {
	if o.TablesEvery <= 0 {
		o.TablesEvery = 3 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	return o
}

// webHandler serves the page for one simulated bridge.
type webHandler struct {
	s    *Server
	opts WebOptions
}

// WebHandler serves the live page of the bridge:
//
//	GET /             the page
//	GET /events       server-sent events: "state" (bridge and lights) on
//	                  connect and after every change, "tables" when the
//	                  table list changes
//	GET /state.json   the same data once
//
// It is served apart from the bridge API so that the page stays up while
// the bridge is Offline, and only to the page's own address (GuardPage:
// no DNS rebinding).
func (s *Server) WebHandler(opts WebOptions) http.Handler {
	h := &webHandler{s: s, opts: opts.withDefaults()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.index)
	mux.HandleFunc("GET /events", h.events)
	mux.HandleFunc("GET /state.json", h.stateJSON)
	return GuardPage(mux)
}

func (h *webHandler) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(indexHTML)
}

func (h *webHandler) stateJSON(w http.ResponseWriter, r *http.Request) {
	out := struct {
		pageState
		Tables *tablesState `json:"tables,omitempty"`
	}{pageState: h.s.pageState(h.opts.Tables != nil)}
	if h.opts.Tables != nil {
		t := fetchTables(r.Context(), h.opts.Tables, h.opts.TablesEvery)
		out.Tables = &t
	}
	writeJSON(w, http.StatusOK, out)
}

// ServeWeb serves WebHandler on addr and returns the address it listens on
// and a function that stops it (closing open event streams).
func (s *Server) ServeWeb(addr string, opts WebOptions) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	// No WriteTimeout: event streams are meant to stay open for hours.
	srv := &http.Server{Handler: s.WebHandler(opts), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}

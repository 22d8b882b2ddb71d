package huesim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// sseStream writes server-sent events and flushes each one, so the page
// sees it at once instead of when a buffer fills.
type sseStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s sseStream) send(event string, data []byte) error {
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s sseStream) comment(text string) error {
	if _, err := fmt.Fprintf(s.w, ": %s\n\n", text); err != nil {
		return err
	}
	return s.rc.Flush()
}

// events streams the bridge to one page until the page goes away (its
// request context ends) or a write fails.
func (h *webHandler) events(w http.ResponseWriter, r *http.Request) {
	// Subscribe before the first snapshot so no change falls in between.
	changed, unsubscribe := h.s.Subscribe()
	defer unsubscribe()
	ctx := r.Context()
	tables := h.pollTables(ctx)
	heartbeat := time.NewTicker(h.opts.Heartbeat)
	defer heartbeat.Stop()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	out := sseStream{w: w, rc: http.NewResponseController(w)}
	// retry: a restarted simulator is picked up within a second.
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return
	}
	err := h.sendState(out)
	var lastTables []byte
	for err == nil {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			err = h.sendState(out)
		case t := <-tables:
			data, _ := json.Marshal(t)
			if !bytes.Equal(data, lastTables) { // quiet when nothing changed
				lastTables = data
				err = out.send("tables", data)
			}
		case <-heartbeat.C:
			err = out.comment("heartbeat")
		}
	}
}

func (h *webHandler) sendState(out sseStream) error {
	data, err := json.Marshal(h.s.pageState(h.opts.Tables != nil))
	if err != nil {
		return err
	}
	return out.send("state", data)
}

// pollTables fetches the table list now and every TablesEvery until ctx
// ends. It runs beside the stream so a slow DynamoDB never delays light
// updates. Without a table source it returns nil, which never receives.
func (h *webHandler) pollTables(ctx context.Context) <-chan tablesState {
	if h.opts.Tables == nil {
		return nil
	}
	out := make(chan tablesState)
	go func() {
		tick := time.NewTicker(h.opts.TablesEvery)
		defer tick.Stop()
		for {
			t := fetchTables(ctx, h.opts.Tables, h.opts.TablesEvery)
			select {
			case out <- t:
			case <-ctx.Done():
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

package huesim

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The CLIP v2 event stream, as docs/hue-behaviour.md ("Event stream") describes
// real bridges, from openhue-api's src/eventstream and aiohue:
//   - GET /eventstream/clip/v2 with the hue-application-key; the first
//     thing sent is the comment ": hi";
//   - each message is "id: <unix seconds>:<n>", "data: <JSON array of
//     containers>", a blank line; a container is {"id", "creationtime",
//     "type": add|update|delete, "data": [partial resources]}: an update
//     carries only what changed with id, id_v1, owner and type, an add the
//     whole resource, a delete its id and type;
//   - the bridge batches: at most one message a second, and a property
//     changed twice within it arrives once. The simulator sends the first
//     change after a quiet second at once and holds later ones until a
//     second after the previous message;
//   - there is no keep-alive: a quiet bridge sends nothing at all.
// Events are the difference between the v2 view before and after, so every
// change a v1 command, the "Hue app" controls or a v2 command makes arrives.

// EventBatch is the bridge's batching window: at most one event message
// in it.
const EventBatch = time.Second

// eventStream serves one client until it goes away or the test closes it.
func (b *Bridge) eventStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	// Subscribed before ": hi": a change made once the client has read it
	// is in the stream (the other order lost changes made in between).
	c, ok := b.subscribeEvents()
	if ok {
		defer b.unsubscribeEvents(c)
	}
	if _, err := fmt.Fprint(w, ": hi\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	if !ok {
		return // dropped by the test's control
	}
	if n := b.floodSize(); n > 0 {
		if writeFlood(w, rc, n) != nil {
			return
		}
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.gone:
			return
		case msg := <-c.out:
			if _, err := w.Write(msg); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

func (b *Bridge) subscribeEvents() (*streamClient, bool) {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropNew > 0 {
		h.dropNew--
		return nil, false
	}
	c := &streamClient{out: make(chan []byte, 64), gone: make(chan struct{})}
	if h.clients == nil {
		h.clients = map[*streamClient]struct{}{}
	}
	h.clients[c] = struct{}{}
	if !h.running {
		// Subscribed to changes before the view is taken, here and not in
		// runEvents: a change made before runEvents got to run would
		// otherwise be in neither the view nor a notification, and reach
		// no stream until another change came.
		changed, unsubscribe := b.Subscribe()
		h.running, h.stop = true, make(chan struct{})
		b.mu.Lock()
		h.last = indexResources(b.v2Resources())
		b.mu.Unlock()
		go b.runEvents(h.stop, changed, unsubscribe)
	}
	return c, true
}

func (b *Bridge) unsubscribeEvents(c *streamClient) {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
	if len(h.clients) == 0 && h.running {
		h.running = false
		close(h.stop)
	}
}

// runEvents turns the bridge's changes into messages, batched, until the
// last stream goes.
func (b *Bridge) runEvents(stop chan struct{}, changed <-chan struct{}, unsubscribe func()) {
	defer unsubscribe()
	var (
		last  time.Time
		timer <-chan time.Time
	)
	for {
		select {
		case <-stop:
			return
		case <-changed:
			if timer != nil {
				continue // already due within the window
			}
			if wait := EventBatch - time.Since(last); wait > 0 {
				timer = time.After(wait)
				continue
			}
		case <-timer:
		}
		timer = nil
		if b.flushEvents() {
			last = time.Now()
		}
	}
}

// flushEvents sends what changed since the last message, if anything, and
// reports whether it sent one.
func (b *Bridge) flushEvents() bool {
	b.mu.Lock()
	at := time.Now() // the state the message carries is as of now
	hung := b.conn.hang
	now := indexResources(b.v2Resources())
	b.mu.Unlock()
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	if hung || h.hung {
		return false // a bridge off the network sends nothing; changes wait
	}
	containers := diffResources(h.last, now)
	h.last = now
	if len(containers) == 0 {
		return false
	}
	data, _ := json.Marshal(containers)
	sec := time.Now().Unix()
	if sec != h.seqSecond {
		h.seqSecond, h.seq = sec, 0
	}
	msg := fmt.Appendf(nil, "id: %d:%d\ndata: %s\n\n", sec, h.seq, data)
	h.seq++
	h.messages++
	for c := range h.clients {
		select {
		case c.out <- msg:
		default:
			c.close() // too slow a reader: the bridge drops it
		}
	}
	if len(h.clients) > 0 {
		b.watch.pushed(Push{At: at, LightIDs: pushedLights(containers)})
	}
	return true
}

// pushedLights lists the v1 ids of the lights whose resource a message's
// containers carry.
func pushedLights(containers []map[string]any) []string {
	var ids []string
	for _, c := range containers {
		items, _ := c["data"].([]any)
		for _, it := range items {
			r, _ := it.(resource)
			idV1, _ := r["id_v1"].(string)
			if r["type"] == "light" && strings.HasPrefix(idV1, "/lights/") {
				ids = append(ids, strings.TrimPrefix(idV1, "/lights/"))
			}
		}
	}
	return ids
}

func indexResources(list []resource) map[string]resource {
	out := make(map[string]resource, len(list))
	for _, r := range list {
		out[r["id"].(string)] = r
	}
	return out
}

// diffResources is the event containers that turn before into after.
func diffResources(before, after map[string]resource) []map[string]any {
	var adds, updates, deletes []any
	for id, r := range after {
		old, ok := before[id]
		if !ok {
			adds = append(adds, r)
			continue
		}
		if u := changedFields(old, r); u != nil {
			updates = append(updates, u)
		}
	}
	for id, r := range before {
		if _, ok := after[id]; !ok {
			deletes = append(deletes, resource{"id": id, "type": r["type"]})
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var out []map[string]any
	for _, c := range []struct {
		typ  string
		data []any
	}{{"add", adds}, {"update", updates}, {"delete", deletes}} {
		if len(c.data) > 0 {
			out = append(out, map[string]any{"id": eventID(), "creationtime": now, "type": c.typ, "data": c.data})
		}
	}
	return out
}

// changedFields is an update's data: the fields (and, within an object,
// the members) that changed, with the resource's id, id_v1, owner and
// type; nil when nothing changed.
func changedFields(before, after resource) resource {
	u := resource{}
	for k, v := range after {
		old, ok := before[k]
		if ok && sameJSON(old, v) {
			continue
		}
		if oldMap, newMap := asMap(old), asMap(v); oldMap != nil && newMap != nil {
			part := map[string]any{}
			for mk, mv := range newMap {
				if !sameJSON(oldMap[mk], mv) {
					part[mk] = mv
				}
			}
			u[k] = part
			continue
		}
		u[k] = v
	}
	if len(u) == 0 {
		return nil
	}
	for _, k := range []string{"id", "id_v1", "owner", "type"} {
		if v, ok := after[k]; ok {
			u[k] = v
		}
	}
	return u
}

func asMap(v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil || len(data) == 0 || data[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func eventID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// DropEventStreams closes every open event stream, as a bridge that
// restarts its stream (or a network that drops it) does.
func (b *Bridge) DropEventStreams() {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		c.close()
	}
}

// FloodEventStreams makes every event stream opened from now on start with
// one message of about n bytes (0 stops it): "data: [", n spaces, "]", a
// valid and empty JSON array in one line, as a hostile bridge or a man in
// the middle could send. No real bridge does: its messages are a few KiB.
func (b *Bridge) FloodEventStreams(n int) {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flood = n
}

func (b *Bridge) floodSize() int {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.flood
}

// floodChunk is what a flood is written in, so that the simulator itself
// holds 64 KiB of it, not n bytes.
var floodChunk = bytes.Repeat([]byte(" "), 64<<10)

// writeFlood writes the flood message; it stops when the client goes.
func writeFlood(w http.ResponseWriter, rc *http.ResponseController, n int) error {
	if _, err := io.WriteString(w, "data: ["); err != nil {
		return err
	}
	for sent := 0; sent < n; sent += len(floodChunk) {
		if _, err := w.Write(floodChunk[:min(len(floodChunk), n-sent)]); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "]\n\n"); err != nil {
		return err
	}
	return rc.Flush()
}

// DropNewEventStreams closes the next n event streams right after ": hi":
// a bridge that keeps dropping its stream.
func (b *Bridge) DropNewEventStreams(n int) {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropNew = n
}

// HangEventStreams makes open event streams go silent (true) while the
// bridge goes on serving requests, or resume (false).
func (b *Bridge) HangEventStreams(hung bool) {
	h := &b.events
	h.mu.Lock()
	h.hung = hung
	h.mu.Unlock()
	if !hung {
		b.notify()
	}
}

// EventMessages counts the event messages the bridge sent (to all streams).
func (b *Bridge) EventMessages() int {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.messages
}

// EventStreams counts the open event streams.
func (b *Bridge) EventStreams() int {
	h := &b.events
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

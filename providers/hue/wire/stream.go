package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The CLIP v2 event stream (openhue-api's src/eventstream, Hue's migration
// guide; docs/hue-behaviour.md, "Event stream"): one GET /eventstream/clip/v2 per
// bridge, server-sent events, each message a JSON array of add/update/delete
// containers of partial resources, at most one a second. Drift, reachability
// and new or renamed lights arrive as events and feed the same cache as a
// poll: after each message the store's lights go to cache.apply, each light
// as of when it was last heard of.
//
// The reader is a small one (sseReader, the SSE format's id/data/comment
// fields and blank-line dispatch) rather than a library: what the Hue
// stream needs around the parsing is all policy the libraries get in the
// way of. The bridge sends no keep-alive, so a silence watchdog is Tether's
// own (r3labs/sse has no idle timeout); every (re)connect must be followed
// by a full read and counted toward the fall back to polling, which a
// library's built-in reconnect loop hides (r3labs/sse retries any error,
// a 403 included, for as long as its backoff lasts); and the stream shares
// the bridge's request slots and verified TLS with the client.

// ErrSilent ends a stream the watchdog found silent.
var ErrSilent = errors.New("the event stream was silent too long")

// PushClient is a Client whose bridge pushes its changes.
type PushClient interface {
	Client
	// Watch connects the stream, reads everything, and then delivers the
	// lights after every message, until the stream ends (the error says
	// why). connected is called once the bridge accepted the stream.
	Watch(ctx context.Context, silence time.Duration, connected func(), deliver func(Read)) error
}

var _ PushClient = (*v2Client)(nil)

// Watch implements pushClient for CLIP v2. The stream holds one of the
// bridge's request slots while it is open.
func (c *v2Client) Watch(ctx context.Context, silence time.Duration, connected func(), deliver func(Read)) (err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/eventstream/clip/v2", nil)
	if err != nil {
		return err
	}
	if c.user != "" {
		req.Header.Set("hue-application-key", c.user)
	}
	req.Header.Set("Accept", "text/event-stream")
	if id := c.store.lastEventID(); id != "" {
		req.Header.Set("Last-Event-ID", id) // the exact string, ":0" included (HA core #62715)
	}
	deadline := time.AfterFunc(c.timeout, func() { cancel(context.DeadlineExceeded) })
	res, err := c.stream.Do(req)
	deadline.Stop()
	if err != nil {
		return fmt.Errorf("connecting the event stream: %w", err)
	}
	defer res.Body.Close()
	if err := refusedRedirect(res); err != nil {
		return redact(err, c.user)
	}
	switch {
	case res.StatusCode == http.StatusNotFound:
		return &ProtocolError{Detail: errNotV2.Error()}
	case res.StatusCode != http.StatusOK:
		return statusError(res.StatusCode, v2Answer{})
	}
	connected()
	// One full read after every (re)connect: what changed while the
	// stream was down (the bridge does not replay it) is read, not missed.
	r, err := c.readAll(ctx)
	if err != nil {
		return err
	}
	deliver(r)

	watchdog := time.AfterFunc(silence, func() { cancel(ErrSilent) })
	defer watchdog.Stop()
	sse := newSSEReader(res.Body)
	for {
		msg, err := sse.next()
		if err != nil {
			if cause := context.Cause(ctx); errors.Is(cause, ErrSilent) {
				return ErrSilent
			}
			return err
		}
		watchdog.Reset(silence)
		if msg.id != "" {
			c.store.setLastEventID(msg.id)
		}
		if msg.data == "" {
			continue // a comment (": hi")
		}
		var events []v2Event
		if err := json.Unmarshal([]byte(msg.data), &events); err != nil {
			continue // not for us to understand; the next full read covers it
		}
		now := time.Now()
		touched, err := c.store.apply(events, now)
		if err != nil {
			return err // the next connect reads everything again
		}
		if touched.lights || touched.groups || len(touched.scenes) > 0 {
			r := c.store.read(now)
			if touched.groups {
				r.Groups = c.store.groups() // a room or zone changed: pushed like a light
			}
			r.Scenes = c.scenes.v1IDs(touched.scenes)
			deliver(r)
		}
	}
}

// sseReader reads server-sent events: "field: value" lines, a blank line
// ending each message, lines starting with ":" comments. A message (and so
// a line) longer than maxEventBytes ends the stream (bounds.go): the
// reader never holds more than that.
type sseReader struct{ sc *bufio.Scanner }

type sseMessage struct{ id, data string }

// errEventTooLarge ends a stream that sent a message past maxEventBytes.
var errEventTooLarge = fmt.Errorf("the bridge sent an event-stream message larger than %d KiB (its messages are a few KiB): stream dropped", maxEventBytes>>10)

func newSSEReader(r io.Reader) sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), maxEventBytes)
	return sseReader{sc: sc}
}

// next returns the next message (a comment-only block comes back empty, so
// that the caller sees the stream is alive).
func (s sseReader) next() (sseMessage, error) {
	var (
		m     sseMessage
		data  []string
		size  int
		lines int
	)
	for s.sc.Scan() {
		line := s.sc.Text()
		if line == "" {
			if lines == 0 {
				continue
			}
			m.data = strings.Join(data, "\n")
			return m, nil
		}
		lines++
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			m.id = value
		case "data":
			if size += len(value) + 1; size > maxEventBytes {
				return sseMessage{}, errEventTooLarge
			}
			data = append(data, value)
		}
	}
	err := s.sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return sseMessage{}, errEventTooLarge
	case err == nil:
		err = io.ErrUnexpectedEOF
	}
	return sseMessage{}, fmt.Errorf("event stream ended: %w", err)
}

// lastEventID and setLastEventID keep the id of the last message, sent
// back on a reconnect.
func (s *v2Store) lastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

func (s *v2Store) setLastEventID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastID = id
}

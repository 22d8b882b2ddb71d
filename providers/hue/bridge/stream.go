package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Stream states, as the HueBridge's status.eventStream.state names them.
const (
	StreamConnected  = "Connected"
	StreamConnecting = "Connecting"
	StreamPolling    = "Polling"
)

// StreamSettings shape each v2 session's event stream; a field left zero
// takes the default beside it.
type StreamSettings struct {
	// SafetyRead is how often a full read runs while the stream is up, in
	// case an event was lost (DefaultSafetyRead).
	SafetyRead time.Duration
	// Silence is how long a stream may send nothing before it is
	// reconnected (DefaultSilence). The bridge sends no keep-alive, so on a
	// quiet home this reconnects (and reads everything) once per Silence.
	// A bridge gone from the network is noticed sooner, by TCP keep-alives.
	Silence time.Duration
	// DropLimit drops within DropWindow make the session fall back to
	// polling every poll interval, until a stream has stayed up for
	// Stable (defaultDropLimit, defaultDropWindow, defaultStable).
	DropLimit  int
	DropWindow time.Duration
	Stable     time.Duration
	// MaxBackoff caps the wait between reconnects, which doubles from
	// streamBackoffBase (defaultMaxBackoff).
	MaxBackoff time.Duration
}

// The event stream's defaults.
const (
	DefaultSafetyRead = 10 * time.Minute
	DefaultSilence    = 5 * time.Minute
	defaultDropLimit  = 3
	defaultDropWindow = 10 * time.Minute
	defaultStable     = 2 * time.Minute
	defaultMaxBackoff = 30 * time.Second
)

func (s StreamSettings) withDefaults() StreamSettings {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&s.SafetyRead, DefaultSafetyRead)
	def(&s.Silence, DefaultSilence)
	def(&s.DropWindow, defaultDropWindow)
	def(&s.Stable, defaultStable)
	def(&s.MaxBackoff, defaultMaxBackoff)
	if s.DropLimit <= 0 {
		s.DropLimit = defaultDropLimit
	}
	return s
}

// streamBackoffBase is the first wait before a reconnect.
const streamBackoffBase = 500 * time.Millisecond

// streamHealth is a session's event stream as the HueBridge reports it.
type streamHealth struct {
	mu             sync.Mutex
	settings       StreamSettings
	push           bool // the session's client has a stream (v2)
	connected      bool
	polling        bool // fell back to polling after repeated drops
	connectedSince time.Time
	lastEvent      time.Time
	lastFullRead   time.Time
	// fullReadDone is closed (and forgotten) by the next full read that
	// succeeds, for a stream waiting for the bridge to answer again.
	fullReadDone chan struct{}
	reconnects   int
	drops        []time.Time
	lastError    string
}

// StreamStatus is a session's event stream for the HueBridge's status.
type StreamStatus struct {
	State          string // "" on v1 (no stream)
	ConnectedSince time.Time
	LastEvent      time.Time
	Reconnects     int
	Message        string
}

func (h *streamHealth) status() StreamStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.push {
		return StreamStatus{}
	}
	st := StreamStatus{State: StreamConnecting, LastEvent: h.lastEvent, Reconnects: h.reconnects, Message: h.lastError}
	switch {
	case h.polling:
		st.State = StreamPolling
		st.Message = fmt.Sprintf("the bridge dropped its event stream %d times within %s; polling every poll interval until a stream stays up for %s",
			len(h.drops), h.settings.DropWindow, h.settings.Stable)
		if h.lastError != "" {
			st.Message += " (last: " + h.lastError + ")"
		}
	case h.connected:
		st.State, st.ConnectedSince, st.Message = StreamConnected, h.connectedSince, ""
	}
	return st
}

// live reports whether changes arrive by events: connected and read in
// full since, and not in the polling fall-back.
func (h *streamHealth) live() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.push && h.connected && !h.polling && !h.lastFullRead.Before(h.connectedSince)
}

// safetyDue reports whether the last full read is older than SafetyRead.
func (h *streamHealth) safetyDue(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now.Sub(h.lastFullRead) >= h.settings.SafetyRead
}

// fullRead records a full read that succeeded (started at at).
func (h *streamHealth) fullRead(at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastFullRead = at
	if h.fullReadDone != nil {
		close(h.fullReadDone)
		h.fullReadDone = nil
	}
}

// awaitFullRead waits until a full read that started at or after since
// has succeeded, and reports false if ctx ended first.
func (h *streamHealth) awaitFullRead(ctx context.Context, since time.Time) bool {
	for {
		h.mu.Lock()
		if !h.lastFullRead.Before(since) {
			h.mu.Unlock()
			return ctx.Err() == nil
		}
		if h.fullReadDone == nil {
			h.fullReadDone = make(chan struct{})
		}
		done := h.fullReadDone
		h.mu.Unlock()
		select {
		case <-ctx.Done():
			return false
		case <-done:
		}
	}
}

func (h *streamHealth) event(at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastEvent = at
}

func (h *streamHealth) setPush(push bool) (changed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed, h.push = h.push != push, push
	if !push {
		h.connected = false
	}
	return changed
}

func (h *streamHealth) up(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.connected, h.connectedSince, h.lastError = true, now, ""
}

// down records the end of a stream (or a failed connect) and returns the
// wait before the next try. A stream that was up and did not go silent is
// a drop; DropLimit drops within DropWindow turn polling on.
func (h *streamHealth) down(err error, wasUp bool, attempt int, now time.Time) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.connected = false
	h.reconnects++
	if err != nil {
		h.lastError = err.Error()
	}
	if wasUp && !errors.Is(err, wire.ErrSilent) {
		h.drops = append(h.drops, now)
	}
	for len(h.drops) > 0 && now.Sub(h.drops[0]) > h.settings.DropWindow {
		h.drops = h.drops[1:]
	}
	if len(h.drops) >= h.settings.DropLimit {
		h.polling = true
	}
	if attempt <= 0 {
		return 0
	}
	return min(streamBackoffBase<<min(attempt-1, 16), h.settings.MaxBackoff)
}

// settle ends the polling fall-back once a stream has stayed up for
// Stable, and reports whether it did.
func (h *streamHealth) settle(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.polling || !h.connected || now.Sub(h.connectedSince) < h.settings.Stable {
		return false
	}
	h.polling, h.drops = false, nil
	return true
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// streamer keeps a session's event stream connected while its client has
// one, reconnecting with a capped backoff, and hands every read the stream
// brings to deliver. The session's poll loop polls whenever the stream is
// not live, so nothing waits for a reconnect.
//
// A stream that ended after the bridge accepted it is reconnected after
// the backoff alone: the bridge answered a moment ago. A connect that
// failed (the bridge refused the stream or did not answer) is tried again
// only once a poll that started after the failure succeeded: while the
// bridge is off the network the polls find out as cheaply when it is
// back, so an outage costs one read per poll interval and the stream's
// one try after the drop, not that and a retry per backoff step.
type streamer struct {
	bridgeID string
	client   *clientRef
	health   *streamHealth
	settings StreamSettings
	interval time.Duration // how often a client without a stream is looked at again
	wakes    *wakes
	log      logr.Logger
	deliver  func(wire.Read)
}

func (s *streamer) run(ctx context.Context) {
	attempt := 0
	for ctx.Err() == nil {
		c, push := s.client.get().(wire.PushClient)
		if s.health.setPush(push) {
			s.wakes.bridge(s.bridgeID)
		}
		if !push {
			if !sleepCtx(ctx, s.interval) {
				return
			}
			continue
		}
		var upAt time.Time
		wctx, end := context.WithCancel(ctx)
		if !s.client.streaming(c, end) { // switched meanwhile
			end()
			continue
		}
		err := c.Watch(wctx, s.settings.Silence, func() {
			upAt = time.Now()
			s.health.up(upAt)
			s.wakes.bridge(s.bridgeID)
		}, s.deliver)
		end()
		endedAt := time.Now()
		if ctx.Err() != nil {
			return
		}
		if s.client.get() != wire.Client(c) {
			s.health.down(err, false, 0, time.Now())
			continue // another client: its own stream, at once
		}
		wasUp := !upAt.IsZero()
		switch {
		case wasUp && (errors.Is(err, wire.ErrSilent) || time.Since(upAt) >= s.settings.Stable):
			attempt = 0 // a stream that was fine: reconnect at once
		default:
			attempt++
		}
		wait := s.health.down(err, wasUp, attempt, endedAt)
		s.log.V(1).Info("event stream ended; reconnecting", "error", fmt.Sprint(err), "in", wait.String(), "afterARead", !wasUp)
		s.wakes.bridge(s.bridgeID)
		if !sleepCtx(ctx, wait) {
			return
		}
		if !wasUp && !s.health.awaitFullRead(ctx, endedAt) {
			return
		}
	}
}

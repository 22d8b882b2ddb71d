package bridge

import (
	"context"
	"time"
)

// Read-back: a bridge without a live event stream (v1, or v2 while its
// stream is down) shows what it accepted only when Tether reads it. Rather
// than leave a commanded bulb unconfirmed until the next poll (its HueLight
// would then write its status twice, once at Ready and once more when the
// read shows the bulb), the session reads the lights back, in one GET for
// the whole bridge, shortly after it commands them, and once more after the
// command's transition when that read did not show it; the read wakes the
// HueLights and HueGroups it confirms, whose next pass writes their status
// once.

// readBackSpacing is the least time between two read-backs of one bridge:
// commands that keep coming are read back together, one read per spacing at
// most. It is the spacing of Home Assistant's Hue v1 integration, which reads
// all lights again after commands at most once per 0.3 s
// (REQUEST_REFRESH_DELAY in home-assistant/core
// homeassistant/components/hue/const.py, the refresh debouncer of its light
// coordinator in hue/v1/light.py); the bridge's documented budget, 10 a
// second to /lights (docs/hue-behaviour.md, "Rate"), is for commands, and a
// burst's commands, paced by it, still outnumber its reads.
const readBackSpacing = 300 * time.Millisecond

// readBacks reads the lights back when a command asks for it (the cache's
// read-back), until ctx ends. A live event stream shows the change
// itself: then nothing is read.
func (s *Session) readBacks(ctx context.Context) {
	var last time.Time
	for {
		var timer <-chan time.Time
		if due, ok := s.cache.readBackDue(); ok {
			due = later(due, last.Add(readBackSpacing))
			timer = time.After(time.Until(due))
		}
		select {
		case <-ctx.Done():
			return
		case <-s.cache.readBackKick:
			continue
		case <-timer:
		}
		now := time.Now()
		if !s.cache.takeReadBack(now) || s.stream.live() {
			continue
		}
		last = now
		s.readMu.Lock()
		_ = s.readLocked(ctx)
		s.readMu.Unlock()
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

package bridge

import (
	"context"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// What the sender asks of the v1 API on a CLIP v2 bridge: only temporary
// groups and scenes (tempgroups.go, tempscenes.go), which CLIP v2 has no
// form of that the Hue app would not show. They are a shortcut, not a
// need: every light also goes by its own CLIP v2 command, and group 0 by
// bridge_home's grouped_light. So on CLIP v2 nothing of v1 is asked before
// the first temporary group or scene: the listing of those a crash left
// waits for it, and a bridge that answers it 404 (its firmware has no v1:
// wire.V1Gone) gets no temporary group or scene again; its lights go one
// by one. A v1 session lists them when the sender starts, as before.

// removeStaleNowOrLater removes the temporary groups and scenes a crash
// left: now on v1, before the first temporary one on CLIP v2.
func (s *sender) removeStaleNowOrLater(ctx context.Context) {
	if wire.APIOf(s.client.get()) == wire.APIV2 {
		s.mu.Lock()
		s.staleLeft = true
		s.mu.Unlock()
		return
	}
	s.removeStaleGroups(ctx)
	s.removeStaleScenes(ctx)
}

// removeStaleBeforeTemporaries removes the leftovers once, before the
// first temporary group or scene of a CLIP v2 session, and reports whether
// temporaries may be used (the bridge did not show it has no v1).
func (s *sender) removeStaleBeforeTemporaries(ctx context.Context) bool {
	s.mu.Lock()
	left := s.staleLeft
	s.staleLeft = false
	s.mu.Unlock()
	if left {
		s.removeStaleGroups(ctx)
		s.removeStaleScenes(ctx)
	}
	return s.temporariesUsable()
}

// temporariesUsable reports whether temporary groups and scenes may be
// tried: not on a bridge known to have no v1.
func (s *sender) temporariesUsable() bool { return !wire.V1Gone(s.client.get()) }

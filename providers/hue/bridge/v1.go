package bridge

import (
	"github.com/tether-dev/tether/providers/hue/wire"
)

// What the sender asks of the v1 API on a CLIP v2 bridge: only temporary
// groups and scenes (tempgroups.go, tempscenes.go), which CLIP v2 has no
// form of that its clients would not see, and the look for those a crash
// left when the sender starts. They are a shortcut, not a need: every
// light also goes by its own CLIP v2 command, and group 0 by bridge_home's
// grouped_light. A bridge that answers that first look 404 (its firmware
// has no v1: wire.V1Gone) is asked nothing of v1 again: it gets no
// temporary group, and its temporary scenes are CLIP v2 scenes in a
// temporary zone (tempscenes.go).

// temporariesUsable reports whether the bridge serves v1, as far as the
// session has seen: temporary groups, and temporary scenes as v1
// LightScenes, only there.
func (s *sender) temporariesUsable() bool { return !wire.V1Gone(s.client.get()) }

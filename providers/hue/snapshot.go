package hue

import (
	"sort"
	"strconv"

	"github.com/amimof/huego"
)

// LightSnapshot is what the bridge last reported for one bulb.
type LightSnapshot struct {
	ID        string
	Name      string
	On        bool
	Bri       int
	Hue       int
	Sat       int
	XY        [2]float64
	CT        int
	ColorMode string
	Reachable bool
}

func snapshotOf(l huego.Light) LightSnapshot {
	s := LightSnapshot{ID: strconv.Itoa(l.ID), Name: l.Name}
	if st := l.State; st != nil {
		s.On, s.Bri, s.Hue, s.Sat, s.CT = st.On, int(st.Bri), int(st.Hue), int(st.Sat), int(st.Ct)
		s.ColorMode, s.Reachable = st.ColorMode, st.Reachable
		if len(st.Xy) == 2 {
			s.XY = [2]float64{float64(st.Xy[0]), float64(st.Xy[1])}
		}
	}
	return s
}

// applied returns the snapshot as it is after the bridge accepted body, so
// the cache does not report drift for a change the bridge just took.
func (s LightSnapshot) applied(body StateBody) LightSnapshot {
	if body.On != nil {
		s.On = *body.On
	}
	if body.Bri != nil {
		s.Bri = *body.Bri
	}
	switch {
	case body.XY != nil:
		s.XY, s.ColorMode = *body.XY, "xy"
	case body.CT != nil:
		s.CT, s.ColorMode = *body.CT, "ct"
	case body.Hue != nil:
		s.Hue, s.Sat, s.ColorMode = *body.Hue, derefOr(body.Sat, s.Sat), "hs"
	}
	return s
}

func derefOr(p *int, fallback int) int {
	if p == nil {
		return fallback
	}
	return *p
}

// lightsByID indexes a poll's result.
type lightsByID map[string]LightSnapshot

func indexLights(lights []huego.Light) lightsByID {
	out := make(lightsByID, len(lights))
	for _, l := range lights {
		s := snapshotOf(l)
		out[s.ID] = s
	}
	return out
}

// byName finds the bulb whose name is exactly name.
func (m lightsByID) byName(name string) (LightSnapshot, bool) {
	for _, l := range m {
		if l.Name == name {
			return l, true
		}
	}
	return LightSnapshot{}, false
}

// names lists the bulbs' names, sorted, for "not found" messages.
func (m lightsByID) names() []string {
	out := make([]string, 0, len(m))
	for _, l := range m {
		out = append(out, strconv.Quote(l.Name))
	}
	sort.Strings(out)
	return out
}

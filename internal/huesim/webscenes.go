package huesim

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// What the page shows of the bridge's CLIP v2 view, read from the same
// records the v2 API serves (v2rooms.go, v2scenes.go, effects.go): a room
// or zone with its v2 id, the scenes stored on it as v2 scenes with each
// light's action and which one is active, and the effect a bulb plays.
// The page reads them here rather than through the API, so that drawing
// the page spends none of the bridge's request budget.

// roomSceneView is one CLIP v2 scene of a room or zone: its id, name,
// whether it is active (its status, as the v2 API reports it: recalled
// last and still shown by every light) and its action per light.
type roomSceneView struct {
	ID     string           `json:"id"`
	Name   string           `json:"name"`
	Active bool             `json:"active"`
	Lights []sceneLightView `json:"lights"`
}

// sceneLightView is one light's action in a scene, its colour already
// computed, so the page only paints.
type sceneLightView struct {
	Name       string `json:"name"`
	On         bool   `json:"on"`
	BriPercent int    `json:"briPercent"`
	Swatch     string `json:"swatch"`
}

// v2RoomID is the CLIP v2 id of a room or zone. Callers hold b.mu.
func (b *Bridge) v2RoomID(g *Group) string { return b.v2ID(v2Type(g), v2GroupKey(g)) }

// roomScenes lists the scenes the v2 API shows on the group (v2Scenes'
// rule: GroupScenes of rooms and zones), by name: their v1 ids are not in
// the order they were made. Callers hold b.mu.
func (b *Bridge) roomScenes(g *Group) []roomSceneView {
	out := []roomSceneView{}
	if g.Type != TypeRoom && g.Type != TypeZone {
		return out
	}
	for id, sc := range b.scenes {
		if sc.Type != TypeGroupScene || sc.Group != g.ID {
			continue
		}
		v := roomSceneView{ID: b.v2ID("scene", id), Name: sc.Name, Lights: []sceneLightView{},
			Active: b.recalled[g.ID] == id && b.shows(g.ID, sc)}
		for _, lid := range sortedStateIDs(sc.States) {
			name := lid
			if l, ok := b.lights[lid]; ok {
				name = l.Name
			}
			v.Lights = append(v.Lights, newSceneLightView(name, sc.States[lid]))
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, c roomSceneView) int {
		return cmp.Or(strings.Compare(a.Name, c.Name), strings.Compare(a.ID, c.ID))
	})
	return out
}

// newSceneLightView paints a stored action as the bulb would show it: a
// state left out of the action (no bri, no colour) is drawn at full
// brightness in the bridge's default white.
func newSceneLightView(name string, st SceneState) sceneLightView {
	shown := LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366}
	if st.On != nil {
		shown.On = *st.On
	}
	if st.Bri != nil {
		shown.Bri = *st.Bri
	}
	switch {
	case st.XY != nil:
		shown.ColorMode, shown.XY = "xy", *st.XY
	case st.CT != nil:
		shown.ColorMode, shown.CT = "ct", *st.CT
	case st.Hue != nil && st.Sat != nil:
		shown.ColorMode, shown.Hue, shown.Sat = "hs", *st.Hue, *st.Sat
	}
	return sceneLightView{Name: name, On: shown.On, BriPercent: int(math.Round(float64(shown.Bri) * 100 / 254)),
		Swatch: SwatchColor(shown)}
}

// playedEffect is the CLIP v2 effect the bulb plays, "" for none (no
// effects object, or no_effect).
func playedEffect(l *Light) string {
	if !l.model().hasEffects() || !playsEffect(l.State) {
		return ""
	}
	return l.State.V2Effect
}

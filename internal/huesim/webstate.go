package huesim

import (
	"context"
	"math"
	"strconv"
	"time"
)

// TableInfo is one DynamoDB table as the demo page lists it.
type TableInfo struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	BillingMode string `json:"billingMode,omitempty"`
	// ItemCount is DynamoDB's approximate count; nil when not fetched.
	ItemCount *int64 `json:"itemCount,omitempty"`
}

// pageState is what the page draws for the bridge: the "state" event and
// the lights part of /state.json.
type pageState struct {
	Bridge      string      `json:"bridge"`
	Network     string      `json:"network"` // online, offline or hanging
	TablesPanel bool        `json:"tablesPanel"`
	Lights      []lightView `json:"lights"`
	Rooms       []roomView  `json:"rooms"`
}

// roomView is a room or zone: its lights by name and the scene it shows
// ("" when none: never recalled, or a light changed since); V2ID and
// Scenes are its CLIP v2 id and the scenes stored on it (webscenes.go).
type roomView struct {
	ID     string          `json:"id"`
	V2ID   string          `json:"v2id"`
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Lights []string        `json:"lights"`
	Scene  string          `json:"scene"`
	Scenes []roomSceneView `json:"scenes"`
}

// lightView is one bulb with its colours already computed, so the page
// only paints.
type lightView struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Model      string `json:"model"`
	Type       string `json:"type"`
	On         bool   `json:"on"`
	Bri        int    `json:"bri"`
	BriPercent int    `json:"briPercent"`
	Reachable  bool   `json:"reachable"`
	ColorMode  string `json:"colormode"`
	Glow       string `json:"glow"`
	Swatch     string `json:"swatch"`
	// Effect is the CLIP v2 effect the bulb plays (candle, fire, ...), ""
	// for none (webscenes.go).
	Effect string `json:"effect"`
}

// tablesState is the "tables" event.
type tablesState struct {
	Tables []TableInfo `json:"tables"`
	Error  string      `json:"error,omitempty"`
}

func newLightView(l *Light) lightView {
	percent := 100 // a plug is on or off
	if l.model().dimmable() {
		percent = int(math.Round(float64(l.State.Bri) * 100 / 254))
	}
	return lightView{
		ID: l.ID, Name: l.Name, Model: l.Model, Type: l.model().Type, On: l.State.On, Bri: l.State.Bri,
		BriPercent: percent,
		Reachable:  l.State.Reachable, ColorMode: l.State.ColorMode,
		Glow: GlowColor(l.State), Swatch: SwatchColor(l.State), Effect: playedEffect(l),
	}
}

// pageState snapshots the bridge in light-id order.
func (s *Server) pageState(tablesPanel bool) pageState {
	st := pageState{Network: s.network(), TablesPanel: tablesPanel}
	s.Bridge.mu.Lock()
	defer s.Bridge.mu.Unlock()
	st.Bridge = s.opts.Name
	st.Lights = make([]lightView, 0, len(s.lights))
	for _, id := range s.sortedLightIDs() {
		st.Lights = append(st.Lights, newLightView(s.lights[id]))
	}
	st.Rooms = s.roomViews()
	return st
}

// roomViews lists the rooms and zones in id order. Callers hold b.mu.
func (b *Bridge) roomViews() []roomView {
	out := []roomView{}
	for n := 1; n <= MaxGroups; n++ {
		g, ok := b.groups[strconv.Itoa(n)]
		if !ok || !mayBeEmpty(g.Type) {
			continue
		}
		r := roomView{ID: g.ID, V2ID: b.v2RoomID(g), Name: g.Name, Type: g.Type, Lights: []string{},
			Scene: b.activeSceneLocked(g.ID), Scenes: b.roomScenes(g)}
		for _, id := range g.Lights {
			if l, ok := b.lights[id]; ok {
				r.Lights = append(r.Lights, l.Name)
			}
		}
		out = append(out, r)
	}
	return out
}

// network says whether clients can reach the bridge's API, as set by
// Offline and Online.
func (s *Server) network() string {
	s.Bridge.mu.Lock()
	hang := s.conn.hang
	s.Bridge.mu.Unlock()
	s.mu.Lock()
	up := s.srv != nil
	s.mu.Unlock()
	switch {
	case !up:
		return "offline"
	case hang:
		return "hanging"
	default:
		return "online"
	}
}

// fetchTables asks the demo's table source, bounded by timeout so a stuck
// DynamoDB endpoint cannot stall the stream.
func fetchTables(ctx context.Context, tables func(context.Context) ([]TableInfo, error), timeout time.Duration) tablesState {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	list, err := tables(ctx)
	if err != nil {
		return tablesState{Tables: []TableInfo{}, Error: err.Error()}
	}
	if list == nil {
		list = []TableInfo{}
	}
	return tablesState{Tables: list}
}

package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"
)

// v2Store is a bridge's CLIP v2 resources as Tether knows them: the last
// full read with every event since merged in, field by field, as aiohue
// merges partial updates (an update carries only what changed). It keeps
// only what its views read (v2Kept, decoded into v2Resource: fields
// nobody reads are never held), an update only of a resource it holds, and
// at most maxAnswerBytes of resources as JSON, as much as one full read may
// bring (bounds.go). lights() is the view of lights. It also keeps, per
// resource, when it last changed, so a view can say how recent each light
// is.
type v2Store struct {
	mu        sync.Mutex
	resources map[string]*v2Resource // id ->
	changedAt map[string]time.Time   // id -> last full read or event that touched it
	size      int                    // the resources' JSON bytes
	// byV1 maps a light's v1 id to its light resource id (refreshed by
	// every view of the lights).
	byV1 map[string]string
	// lastID is the event stream's last message id.
	lastID string
}

// v2Kept are the resource types the store's views read: the lights' and
// the rooms' and zones' (v2groups.go).
var v2Kept = map[string]bool{"light": true, "device": true, "zigbee_connectivity": true, "bridge_home": true,
	"room": true, "zone": true}

// v2Resource is a kept resource: the fields of each kept type that a view
// reads (aiohue models), the light's in v2Light.
type v2Resource struct {
	v2Light
	Type        string `json:"type"`
	ProductData struct {
		ModelID string `json:"model_id"`
	} `json:"product_data"` // device
	Services []v2Ref `json:"services"` // device, bridge_home, room, zone
	Children []v2Ref `json:"children"` // room (devices), zone (lights)
	Status   string  `json:"status"`   // zigbee_connectivity
	size     int     // its JSON bytes, counted in the store's size
}

func newV2Store() *v2Store {
	return &v2Store{resources: map[string]*v2Resource{}, changedAt: map[string]time.Time{}, byV1: map[string]string{}}
}

// decodeKept decodes a resource the store keeps; ok is false for another
// type, or one that does not decode.
func decodeKept(raw json.RawMessage) (*v2Resource, bool) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &head) != nil || !v2Kept[head.Type] {
		return nil, false
	}
	r := &v2Resource{}
	if json.Unmarshal(raw, r) != nil || r.ID == "" {
		return nil, false
	}
	r.size = len(raw)
	return r, true
}

// replace takes a full read started at at.
func (s *v2Store) replace(list []json.RawMessage, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources = map[string]*v2Resource{}
	s.changedAt = map[string]time.Time{}
	s.size = 0
	for _, raw := range list {
		if r, ok := decodeKept(raw); ok {
			s.resources[r.ID], s.changedAt[r.ID] = r, at
			s.size += r.size
		}
	}
}

// v2Event is one container of the event stream.
type v2Event struct {
	Type string            `json:"type"`
	Data []json.RawMessage `json:"data"`
}

// touched says what an event message changed: in the store, a resource a
// light view reads (light, device, zigbee_connectivity), a room or zone;
// and the scenes it named (their ids and id_v1s: the store keeps no
// scenes, client_v2_scenes.go reads them).
type touched struct {
	lights, groups bool
	scenes         []v2Ref // RID the id, RType the id_v1 ("" on a delete)
}

// apply merges event containers received at at, and says what they
// touched. It fails when the store would pass maxAnswerBytes: no bridge has
// that much, and the stream's next connect reads everything again.
func (s *v2Store) apply(events []v2Event, at time.Time) (touched, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t touched
	for _, e := range events {
		for _, raw := range e.Data {
			var head struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			}
			if json.Unmarshal(raw, &head) != nil || head.ID == "" {
				continue
			}
			if head.Type == "scene" {
				var idV1 struct {
					IDV1 string `json:"id_v1"`
				}
				_ = json.Unmarshal(raw, &idV1)
				t.scenes = append(t.scenes, v2Ref{RID: head.ID, RType: idV1.IDV1})
				continue
			}
			if !v2Kept[head.Type] {
				continue
			}
			switch e.Type {
			case "add":
				r, ok := decodeKept(raw)
				if !ok {
					continue
				}
				s.put(r)
			case "delete":
				if old, ok := s.resources[head.ID]; ok {
					s.size -= old.size
					delete(s.resources, head.ID)
				}
			case "update":
				r, ok := s.resources[head.ID]
				if !ok {
					continue // not a resource the bridge has: the next full read shows what is
				}
				_ = json.Unmarshal(raw, r) // what decodes is merged, as a map merge would
				s.put(r)
			default:
				continue
			}
			if s.size > maxAnswerBytes {
				return t, &ProtocolError{Detail: fmt.Sprintf("the event stream brought more than %d MiB of resources, more than a full read may hold", maxAnswerBytes>>20)}
			}
			s.changedAt[head.ID] = at
			switch head.Type {
			case "room", "zone":
				t.groups = true
			case "bridge_home":
			default:
				t.lights = true
			}
		}
	}
	return t, nil
}

// put stores r (new, or the one held with an update merged in), counting
// its JSON bytes.
func (s *v2Store) put(r *v2Resource) {
	if old, ok := s.resources[r.ID]; ok {
		s.size -= old.size
	}
	if data, err := json.Marshal(r); err == nil {
		r.size = len(data)
	}
	s.resources[r.ID] = r
	s.size += r.size
}

// The parts of the resources the light view reads (aiohue models).
type (
	v2Ref struct {
		RID   string `json:"rid"`
		RType string `json:"rtype"`
	}
	v2Light struct {
		ID       string `json:"id"`
		IDV1     string `json:"id_v1"`
		Owner    v2Ref  `json:"owner"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		On *struct {
			On bool `json:"on"`
		} `json:"on"`
		Dimming *struct {
			Brightness float64 `json:"brightness"`
		} `json:"dimming"`
		ColorTemperature *struct {
			Mirek       *int `json:"mirek"`
			MirekValid  bool `json:"mirek_valid"`
			MirekSchema *struct {
				Min int `json:"mirek_minimum"`
				Max int `json:"mirek_maximum"`
			} `json:"mirek_schema"`
		} `json:"color_temperature"`
		Color *struct {
			XY    *v2XY `json:"xy"`
			Gamut *struct {
				Red   v2XY `json:"red"`
				Green v2XY `json:"green"`
				Blue  v2XY `json:"blue"`
			} `json:"gamut"`
			GamutType string `json:"gamut_type"`
		} `json:"color"`
		// Effects is present only on a light that has effects (openhue-go's
		// LightGet.Effects: effect_values, status, status_values).
		Effects *struct {
			EffectValues []string `json:"effect_values"`
			Status       *string  `json:"status"`
		} `json:"effects"`
		// Powerup is present only on a light that has the setting
		// (v2powerup.go).
		Powerup *v2Powerup `json:"powerup"`
		// Gradient is present only on a gradient light (v2gradient.go).
		Gradient *v2Gradient `json:"gradient"`
		// Dynamics is the speed of what the light plays, valid only when
		// speed_valid says so (openhue-go's LightGet.Dynamics; aiohue's
		// DynamicsFeature).
		Dynamics *struct {
			Speed      *float64 `json:"speed"`
			SpeedValid bool     `json:"speed_valid"`
		} `json:"dynamics"`
	}
)

// read is the lights as the store has them, as one read at at, each
// light's own time being when the store last heard of it.
func (s *v2Store) read(at time.Time) Read {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Read{At: at, LightAt: map[string]time.Time{}}
	byV1 := map[string]string{}
	for id, res := range s.resources {
		if res.Type != "light" {
			continue
		}
		light, changed := s.lightLocked(id, res.v2Light)
		r.Lights = append(r.Lights, light)
		r.LightAt[light.ID] = changed
		byV1[light.ID] = id
	}
	s.byV1 = byV1
	return r
}

// lightLocked is one light in Tether's types, and when any resource it is
// read from last changed.
func (s *v2Store) lightLocked(id string, l v2Light) (model.Light, time.Time) {
	changed := s.changedAt[id]
	dev, hasDevice := s.resources[l.Owner.RID]
	if !hasDevice {
		dev = &v2Resource{}
	} else {
		changed = later(changed, s.changedAt[l.Owner.RID])
	}
	reachable := true
	for _, svc := range dev.Services {
		if svc.RType == "zigbee_connectivity" {
			if conn, ok := s.resources[svc.RID]; ok {
				reachable = conn.Status == "connected"
				changed = later(changed, s.changedAt[svc.RID])
			}
		}
	}
	out := model.Light{
		ID:      v1ID(l.IDV1, id),
		Name:    or(dev.Metadata.Name, l.Metadata.Name),
		ModelID: dev.ProductData.ModelID,
	}
	out.Capabilities = l.capabilities()
	out.Type = typeOf(out.Capabilities)
	out.State = l.state(reachable)
	return out, changed
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// v1ID is the light's v1 id ("/lights/7" -> "7"); a light without one
// (newer than v1) is known by its v2 id.
func v1ID(idV1, id string) string {
	if n, ok := strings.CutPrefix(idV1, "/lights/"); ok && n != "" {
		return n
	}
	return id
}

// capabilities reads what the light can show from the features it has
// (Home Assistant's v2 light does the same: color -> xy, color_temperature
// -> colour temperature, dimming -> brightness).
func (l v2Light) capabilities() model.Capabilities {
	c := model.Capabilities{Dimmable: l.Dimming != nil, Color: l.Color != nil, V2: true}
	if e := l.Effects; e != nil {
		// A light whose effects object lists nothing still has effects:
		// none it can be asked for, which is what the note should say.
		c.Effects = append([]string{}, e.EffectValues...)
	}
	c.Powerup, c.Dynamics = l.Powerup != nil, l.Dynamics != nil
	if l.Gradient != nil {
		c.Gradient = l.Gradient.capabilities()
	}
	if ct := l.ColorTemperature; ct != nil {
		r := model.MiredRange{Min: minMireds, Max: maxMireds}
		// aiohue maps a schema minimum of 0 to 153 and a maximum of 65535
		// to 500; Tether's spec reaches 153-500 only.
		if s := ct.MirekSchema; s != nil && s.Min > 0 && s.Max < 65535 && s.Min < s.Max {
			r = model.MiredRange{Min: max(s.Min, minMireds), Max: min(s.Max, maxMireds)}
		}
		c.ColorTemperature = &r
	}
	if col := l.Color; col != nil {
		if g := col.Gamut; g != nil {
			gamut := model.Gamut{Type: col.GamutType, Red: [2]float64{g.Red.X, g.Red.Y}, Green: [2]float64{g.Green.X, g.Green.Y},
				Blue: [2]float64{g.Blue.X, g.Blue.Y}}
			if gamut.Area() > 1e-4 {
				c.Gamut = &gamut
			}
		}
		if g, ok := v1Gamuts[col.GamutType]; ok && c.Gamut == nil {
			c.Gamut = &g // some bulbs omit the triangle (aiohue)
		}
	}
	return c
}

// typeOf names the light's type as the v1 API would, from what it can do,
// so that status.capabilities.type reads the same on both APIs.
func typeOf(c model.Capabilities) string {
	switch {
	case c.Color && c.ColorTemperature != nil:
		return "Extended color light"
	case c.Color:
		return "Color light"
	case c.ColorTemperature != nil:
		return "Color temperature light"
	case c.Dimmable:
		return "Dimmable light"
	}
	return "On/Off plug-in unit"
}

// state is what the light reports, in Tether's units. In xy mode a colour
// light reports mirek null and mirek_valid false: its colour temperature
// is then unknown, not a value.
func (l v2Light) state(reachable bool) model.LightState {
	st := model.LightState{Reachable: reachable}
	if l.On != nil {
		st.On = l.On.On
	}
	if l.Dimming != nil {
		bri := briOf(l.Dimming.Brightness)
		st.Bri = &bri
	}
	if col := l.Color; col != nil && col.XY != nil {
		xy := [2]float64{model.RoundXY(col.XY.X), model.RoundXY(col.XY.Y)}
		st.XY, st.ColorMode = &xy, "xy"
	}
	if ct := l.ColorTemperature; ct != nil && ct.MirekValid && ct.Mirek != nil {
		v := *ct.Mirek
		st.CT, st.ColorMode = &v, "ct"
	}
	if e := l.Effects; e != nil && e.Status != nil {
		v := *e.Status
		st.Effect = &v
	}
	if l.Powerup != nil {
		p := l.Powerup.model()
		st.Powerup = &p
	}
	if l.Gradient != nil {
		g := l.Gradient.model()
		st.Gradient = &g
	}
	if d := l.Dynamics; d != nil && d.SpeedValid && d.Speed != nil {
		v := *d.Speed
		st.Speed = &v
	}
	return st
}

// lightByV1 returns the light resource id of a v1 id, and its gamut.
func (s *v2Store) lightByV1(id string) (string, *model.Gamut, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rid, ok := s.byV1[id]
	if !ok {
		return "", nil, false
	}
	l, ok := s.resources[rid]
	if !ok {
		return "", nil, false
	}
	return rid, l.capabilities().Gamut, true
}

// homeGroupedLight is the id of bridge_home's grouped_light (v1 group 0).
func (s *v2Store) homeGroupedLight() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.resources {
		if r.Type != "bridge_home" {
			continue
		}
		for _, svc := range r.Services {
			if svc.RType == "grouped_light" {
				return svc.RID, true
			}
		}
	}
	return "", false
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

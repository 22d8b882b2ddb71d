package hue

import (
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// v2Store is a bridge's CLIP v2 resources as Tether knows them: the last
// full read with every event since merged in, field by field, as aiohue
// merges partial updates (an update carries only what changed). It keeps
// every resource type the bridge sends, so views for more types (rooms,
// zones, scenes, grouped lights) read from the same store; lights() is the
// view of lights. It also keeps, per resource, when it last changed, so a
// view can say how recent each light is.
type v2Store struct {
	mu        sync.Mutex
	resources map[string]map[string]any // id -> resource
	changedAt map[string]time.Time      // id -> last full read or event that touched it
	// byV1 maps a light's v1 id to its light resource id (refreshed by
	// every view of the lights).
	byV1 map[string]string
	// lastID is the event stream's last message id.
	lastID string
}

func newV2Store() *v2Store {
	return &v2Store{resources: map[string]map[string]any{}, changedAt: map[string]time.Time{}, byV1: map[string]string{}}
}

// replace takes a full read started at at.
func (s *v2Store) replace(list []map[string]any, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources = make(map[string]map[string]any, len(list))
	s.changedAt = make(map[string]time.Time, len(list))
	for _, r := range list {
		if id, ok := r["id"].(string); ok {
			s.resources[id], s.changedAt[id] = r, at
		}
	}
}

// v2Event is one container of the event stream.
type v2Event struct {
	Type string           `json:"type"`
	Data []map[string]any `json:"data"`
}

// apply merges event containers received at at, and reports whether any
// touched a resource a light view reads (light, device,
// zigbee_connectivity).
func (s *v2Store) apply(events []v2Event, at time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	touched := false
	for _, e := range events {
		for _, d := range e.Data {
			id, _ := d["id"].(string)
			if id == "" {
				continue
			}
			switch e.Type {
			case "add":
				s.resources[id] = d
			case "delete":
				delete(s.resources, id)
			case "update":
				if r, ok := s.resources[id]; ok {
					merge(r, d)
				} else {
					s.resources[id] = d // an update of something not read yet
				}
			default:
				continue
			}
			s.changedAt[id] = at
			switch d["type"] {
			case "light", "device", "zigbee_connectivity":
				touched = true
			}
		}
	}
	return touched
}

// merge puts src's fields into dst, objects member by member.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if into, ok := dst[k].(map[string]any); ok {
				merge(into, sub)
				continue
			}
		}
		dst[k] = v
	}
}

// The parts of the resources the light view reads (aiohue models).
type (
	v2Ref struct {
		RID   string `json:"rid"`
		RType string `json:"rtype"`
	}
	v2XY struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
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
	}
	v2Device struct {
		ProductData struct {
			ModelID string `json:"model_id"`
		} `json:"product_data"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Services []v2Ref `json:"services"`
	}
)

// decode reads a stored resource into a typed view.
func decode(r map[string]any, out any) bool {
	data, err := json.Marshal(r)
	return err == nil && json.Unmarshal(data, out) == nil
}

// read is the lights as the store has them, as one read at at, each
// light's own time being when the store last heard of it.
func (s *v2Store) read(at time.Time) read {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := read{at: at, lightAt: map[string]time.Time{}}
	byV1 := map[string]string{}
	for id, res := range s.resources {
		if res["type"] != "light" {
			continue
		}
		var l v2Light
		if !decode(res, &l) {
			continue
		}
		light, changed := s.lightLocked(id, l)
		r.lights = append(r.lights, light)
		r.lightAt[light.ID] = changed
		byV1[light.ID] = id
	}
	s.byV1 = byV1
	return r
}

// lightLocked is one light in Tether's types, and when any resource it is
// read from last changed.
func (s *v2Store) lightLocked(id string, l v2Light) (Light, time.Time) {
	changed := s.changedAt[id]
	var dev v2Device
	devRes, hasDevice := s.resources[l.Owner.RID]
	if hasDevice && decode(devRes, &dev) {
		changed = later(changed, s.changedAt[l.Owner.RID])
	}
	reachable := true
	for _, svc := range dev.Services {
		if svc.RType == "zigbee_connectivity" {
			if conn, ok := s.resources[svc.RID]; ok {
				status, _ := conn["status"].(string)
				reachable = status == "connected"
				changed = later(changed, s.changedAt[svc.RID])
			}
		}
	}
	out := Light{
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
func (l v2Light) capabilities() Capabilities {
	c := Capabilities{Dimmable: l.Dimming != nil, Color: l.Color != nil}
	if ct := l.ColorTemperature; ct != nil {
		r := MiredRange{Min: minMireds, Max: maxMireds}
		// aiohue maps a schema minimum of 0 to 153 and a maximum of 65535
		// to 500; Tether's spec reaches 153-500 only.
		if s := ct.MirekSchema; s != nil && s.Min > 0 && s.Max < 65535 && s.Min < s.Max {
			r = MiredRange{Min: max(s.Min, minMireds), Max: min(s.Max, maxMireds)}
		}
		c.ColorTemperature = &r
	}
	if col := l.Color; col != nil {
		if g := col.Gamut; g != nil {
			gamut := Gamut{Type: col.GamutType, Red: [2]float64{g.Red.X, g.Red.Y}, Green: [2]float64{g.Green.X, g.Green.Y},
				Blue: [2]float64{g.Blue.X, g.Blue.Y}}
			if gamut.area() > 1e-4 {
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
func typeOf(c Capabilities) string {
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
func (l v2Light) state(reachable bool) LightState {
	st := LightState{Reachable: reachable}
	if l.On != nil {
		st.On = l.On.On
	}
	if l.Dimming != nil {
		bri := briOf(l.Dimming.Brightness)
		st.Bri = &bri
	}
	if col := l.Color; col != nil && col.XY != nil {
		xy := [2]float64{round4(col.XY.X), round4(col.XY.Y)}
		st.XY, st.ColorMode = &xy, "xy"
	}
	if ct := l.ColorTemperature; ct != nil && ct.MirekValid && ct.Mirek != nil {
		v := *ct.Mirek
		st.CT, st.ColorMode = &v, "ct"
	}
	return st
}

// lightByV1 returns the light resource id of a v1 id, and its gamut.
func (s *v2Store) lightByV1(id string) (string, *Gamut, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rid, ok := s.byV1[id]
	if !ok {
		return "", nil, false
	}
	var l v2Light
	if !decode(s.resources[rid], &l) {
		return "", nil, false
	}
	return rid, l.capabilities().Gamut, true
}

// homeGroupedLight is the id of bridge_home's grouped_light (v1 group 0).
func (s *v2Store) homeGroupedLight() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.resources {
		if r["type"] != "bridge_home" {
			continue
		}
		var home struct {
			Services []v2Ref `json:"services"`
		}
		if decode(r, &home) {
			for _, svc := range home.Services {
				if svc.RType == "grouped_light" {
					return svc.RID, true
				}
			}
		}
	}
	return "", false
}

package huesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// Rooms and zones are groups of type Room and Zone (v1 API 1.11 and 1.30).
// Sources: the Hue API v1 reference, 2. Groups API (a markdown copy of the
// developer documentation; index id 68456204117): a room may be empty, "a
// light is only allowed in one room", a zone may be empty and "a light is
// allowed to be in multiple zones", a room's class defaults to "Other";
// an invalid light id is error 7 and the group is not created. The error a
// room answers for a light that is in another room is 306, "Light is already
// used in another room" (the v1 error list, "Added in 1.11"; a transcription
// with the official wording, index id 20281798391).

// Group types a client may create.
const (
	TypeLightGroup = "LightGroup"
	TypeRoom       = "Room"
	TypeZone       = "Zone"
)

// ErrLightInAnotherRoom is error 306: a room may not take a light that is
// in another room.
const ErrLightInAnotherRoom = 306

// defaultRoomClass is the class of a room or zone created without one.
const defaultRoomClass = "Other"

// creatable lists the group types POST /groups accepts; the others
// (Luminaire, Lightsource, Entertainment) are the bridge's or need
// streaming set-up.
var creatable = map[string]bool{TypeLightGroup: true, TypeRoom: true, TypeZone: true}

// mayBeEmpty reports whether a group of the type may have no lights.
func mayBeEmpty(typ string) bool { return typ == TypeRoom || typ == TypeZone }

// roomConflict returns error 306 when a room (other than except) already
// holds one of the lights. Callers hold b.mu.
func (b *Bridge) roomConflict(addr, except string, lights []string) []result {
	for _, g := range b.groups {
		if g.Type != TypeRoom || g.ID == except {
			continue
		}
		for _, id := range lights {
			if slices.Contains(g.Lights, id) {
				return []result{failure(ErrLightInAnotherRoom, addr,
					fmt.Sprintf("Light %s is already used in another room (%s)", id, g.Name))}
			}
		}
	}
	return nil
}

// setGroupAttributes is PUT /groups/<id>: name, lights and class, answered
// attribute by attribute. Like creation, it refuses an unknown light (error
// 7, nothing changed) and, for a room, a light in another room (306).
func (b *Bridge) setGroupAttributes(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, ok := b.groups[r.PathValue("id")]
	if !ok {
		return []result{notAvailable(addr)}
	}
	var out []result
	if raw, ok := body["lights"]; ok {
		var lights []string
		if json.Unmarshal(raw, &lights) != nil || (len(lights) == 0 && !mayBeEmpty(g.Type)) {
			return []result{invalidValue(addr+"/lights", "lights", string(raw))}
		}
		for _, id := range lights {
			if _, known := b.lights[id]; !known {
				return []result{invalidValue(addr+"/lights", "lights", id)}
			}
		}
		if g.Type == TypeRoom {
			if res := b.roomConflict(addr+"/lights", g.ID, lights); res != nil {
				return res
			}
		}
		g.Lights = slices.Clone(lights)
		out = append(out, success(addr+"/lights", lights))
	}
	if raw, ok := body["name"]; ok {
		var name string
		if json.Unmarshal(raw, &name) != nil || len(name) > 32 {
			out = append(out, invalidValue(addr+"/name", "name", string(raw)))
		} else {
			g.Name = name
			out = append(out, success(addr+"/name", name))
		}
	}
	if raw, ok := body["class"]; ok && mayBeEmpty(g.Type) {
		var class string
		if json.Unmarshal(raw, &class) != nil || class == "" || len(class) > 32 {
			out = append(out, invalidValue(addr+"/class", "class", string(raw)))
		} else {
			g.Class = class
			out = append(out, success(addr+"/class", class))
		}
	}
	return out
}

// AddLightGroup creates a light group (as an application would, or a
// temporary group a crashed Tether left), outside the API's budget.
func (b *Bridge) AddLightGroup(name string, lights ...string) string {
	return b.addGroup(name, TypeLightGroup, lights)
}

// AddZone creates a zone as the Hue app would, outside the API's budget; it
// returns the zone's id, or "" when the group table is full.
func (b *Bridge) AddZone(name string, lights ...string) string {
	return b.addGroup(name, TypeZone, lights)
}

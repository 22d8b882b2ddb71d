package huesim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// ErrGroupTableFull is the error a bridge answers to POST /groups when it
// holds as many groups as it can.
const ErrGroupTableFull = 301

// MaxGroups is the size of the bridge's group table, as on a real bridge.
const MaxGroups = 64

// createGroup is POST /groups: {"name", "lights", "type", "class"}. Like a
// real bridge it refuses lights it does not know, a light group without
// lights, a room taking a light of another room (rooms.go) and a full
// group table.
func (b *Bridge) createGroup(_ *http.Request, addr string, body map[string]json.RawMessage) []result {
	g := Group{Type: TypeLightGroup}
	if raw, ok := body["type"]; ok && (json.Unmarshal(raw, &g.Type) != nil || !creatable[g.Type]) {
		return []result{invalidValue(addr, "type", string(raw))}
	}
	raw, ok := body["lights"]
	if (!ok && !mayBeEmpty(g.Type)) || (ok && json.Unmarshal(raw, &g.Lights) != nil) {
		return []result{failure(ErrMissingParameters, addr, "invalid/missing parameters in body")}
	}
	if len(g.Lights) == 0 && !mayBeEmpty(g.Type) {
		return []result{invalidValue(addr, "lights", "[]")}
	}
	if raw, ok := body["name"]; ok && (json.Unmarshal(raw, &g.Name) != nil || len(g.Name) > 32) {
		return []result{invalidValue(addr, "name", string(raw))}
	}
	if mayBeEmpty(g.Type) {
		g.Class = defaultRoomClass
		if raw, ok := body["class"]; ok && (json.Unmarshal(raw, &g.Class) != nil || g.Class == "" || len(g.Class) > 32) {
			return []result{invalidValue(addr, "class", string(raw))}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range g.Lights {
		if _, ok := b.lights[id]; !ok {
			return []result{invalidValue(addr, "lights", id)}
		}
	}
	if g.Type == TypeRoom {
		if res := b.roomConflict(addr, "", g.Lights); res != nil {
			return res
		}
	}
	if len(b.groups) >= MaxGroups {
		return []result{failure(ErrGroupTableFull, addr, "group could not be created. Group table is full")}
	}
	g.ID = b.freeGroupID()
	g.serial = b.nextGroupSerial()
	if g.Name == "" {
		g.Name = "Group " + g.ID
	}
	b.groups[g.ID] = &g
	return []result{{"success": map[string]any{"id": g.ID}}}
}

// nextGroupSerial is the serial of a group made now. Callers hold b.mu.
func (b *Bridge) nextGroupSerial() int {
	b.groupSerial++
	return b.groupSerial
}

// freeGroupID is the lowest unused id from 1. Callers hold b.mu.
func (b *Bridge) freeGroupID() string {
	for n := 1; ; n++ {
		if _, used := b.groups[strconv.Itoa(n)]; !used {
			return strconv.Itoa(n)
		}
	}
}

// deleteGroup is DELETE /groups/<id>; group 0 cannot be deleted. A bridge
// confirms with a string, not an attribute map: [{"success":"/groups/1
// deleted."}] (the v1 Groups API documentation, "Delete Group"; the same
// answer in huego v1.2.1's tests).
func (b *Bridge) deleteGroup(r *http.Request, addr string, _ map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := r.PathValue("id")
	if _, ok := b.groups[id]; !ok {
		return []result{notAvailable(addr)}
	}
	delete(b.groups, id)
	return []result{{"success": addr + " deleted."}}
}

// groupLights returns the lights a group action reaches. Callers hold b.mu.
func (b *Bridge) groupLights(id string) ([]string, bool) {
	if id == "0" {
		return b.sortedLightIDs(), true
	}
	g, ok := b.groups[id]
	if !ok {
		return nil, false
	}
	return slices.Clone(g.Lights), true
}

// groupJSON is a created group as GET /groups/<id> shows it. Callers hold b.mu.
func (b *Bridge) groupJSON(g *Group) map[string]any {
	allOn, anyOn := len(g.Lights) > 0, false
	action := LightState{Effect: "none", Alert: "none", ColorMode: "ct", Bri: 254, CT: 366, XY: [2]float64{0.4573, 0.41}}
	for i, id := range g.Lights {
		l, ok := b.lights[id]
		if !ok {
			continue
		}
		allOn = allOn && l.State.On
		anyOn = anyOn || l.State.On
		if i == 0 {
			action = l.State
		}
	}
	out := map[string]any{
		"name": g.Name, "lights": g.Lights, "sensors": []string{}, "type": g.Type,
		"state": map[string]bool{"all_on": allOn, "any_on": anyOn}, "recycle": false,
		"action": map[string]any{
			"on": action.On, "bri": action.Bri, "hue": action.Hue, "sat": action.Sat,
			"effect": action.Effect, "xy": action.XY, "ct": action.CT,
			"alert": action.Alert, "colormode": action.ColorMode,
		},
	}
	if g.Class != "" {
		out["class"] = g.Class
	}
	return out
}

// groupsJSON is the id -> group map of GET /groups. Callers hold b.mu.
func (b *Bridge) groupsJSON() map[string]any {
	out := make(map[string]any, len(b.groups))
	for id, g := range b.groups {
		out[id] = b.groupJSON(g)
	}
	return out
}

// Groups returns the groups created through the API, by id.
func (b *Bridge) Groups() map[string]Group {
	defer b.lockView()()
	out := make(map[string]Group, len(b.groups))
	for id, g := range b.groups {
		c := *g
		c.Lights = slices.Clone(g.Lights)
		out[id] = c
	}
	return out
}

// AddGroup creates a group as the Hue app would (a room of the user's), not
// through the API and outside its budget; it returns the group's id, or ""
// when the table is full. Unlike the API it does not check that no other
// room holds the lights.
func (b *Bridge) AddGroup(name string, lights ...string) string {
	return b.addGroup(name, TypeRoom, lights)
}

func (b *Bridge) addGroup(name, typ string, lights []string) string {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.groups) >= MaxGroups {
		return ""
	}
	id := b.freeGroupID()
	b.groups[id] = &Group{ID: id, Name: name, Type: typ, Class: defaultRoomClass, Lights: slices.Clone(lights), serial: b.nextGroupSerial()}
	return id
}

// groupZero is the implicit "all lights" group.
func (b *Bridge) groupZero() map[string]any {
	ids := b.sortedLightIDs()
	allOn, anyOn := len(ids) > 0, false
	for _, id := range ids {
		on := b.lights[id].State.On
		allOn = allOn && on
		anyOn = anyOn || on
	}
	action := LightState{Effect: "none", Alert: "none", ColorMode: "ct", Bri: 254, CT: 366, XY: [2]float64{0.4573, 0.41}}
	if len(ids) > 0 {
		action = b.lights[ids[0]].State
	}
	return map[string]any{
		"name":    "Group 0",
		"lights":  ids,
		"sensors": []string{},
		"type":    "LightGroup",
		"state":   map[string]bool{"all_on": allOn, "any_on": anyOn},
		"recycle": false,
		"action": map[string]any{
			"on": action.On, "bri": action.Bri, "hue": action.Hue, "sat": action.Sat,
			"effect": action.Effect, "xy": action.XY, "ct": action.CT,
			"alert": action.Alert, "colormode": action.ColorMode,
		},
	}
}

func (b *Bridge) getGroups(w http.ResponseWriter, _ *http.Request) {
	// Group 0 is implicit and not listed, as on a real bridge.
	b.mu.Lock()
	defer b.mu.Unlock()
	writeJSON(w, http.StatusOK, b.groupsJSON())
}

func (b *Bridge) getGroup(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := r.PathValue("id")
	if id == "0" {
		writeJSON(w, http.StatusOK, b.groupZero())
		return
	}
	g, ok := b.groups[id]
	if !ok {
		writeJSON(w, http.StatusOK, []result{notAvailable(resourcePath(r))})
		return
	}
	writeJSON(w, http.StatusOK, b.groupJSON(g))
}

// putGroupAction applies the body to every light of the group (group 0: all
// lights), each as far as it can: lights that are off and not switched on
// keep their colour, and a bulb without an attribute ignores it, without
// error 201 or 6, as a real bridge does for groups. The answer is the
// group's, one entry per attribute.
func (b *Bridge) putGroupAction(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids, ok := b.groupLights(r.PathValue("id"))
	if !ok {
		return []result{notAvailable("/groups/" + r.PathValue("id"))}
	}
	if _, recall := body["scene"]; recall {
		return b.recallScene(r.PathValue("id"), addr, body)
	}
	for _, id := range ids {
		if l, ok := b.lights[id]; ok {
			applyState(&l.State, l.model(), l.strict, addr, body, groupAction)
		}
	}
	return applyState(&LightState{On: true}, Models[DefaultModel], false, addr, body, groupAction)
}

package huesim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Rooms and zones in CLIP v2 (openhue-api's OpenAPI description, src/room
// and src/zone, as openhue/openhue-go v0.4.0 transcribes it in RoomGet and
// RoomPut; aiohue's real-bridge fixture, tests/fixtures/v2_resources.json,
// for what real bridges hold):
//   - a room's children are devices, a zone's are light services (the
//     fixture; the specification's examples show lights in rooms, which
//     real bridges do not); a device is in at most one room, a light in
//     any number of zones (openhue-api's tags in main.yaml);
//   - each lists its grouped_light in services, a grouped_light owned by
//     the room or zone, and has the grouped_light only while it holds
//     lights (the fixture: empty rooms list none);
//   - POST /clip/v2/resource/{room|zone} takes children (required) and
//     metadata {name 1-32 characters (required), archetype} and answers
//     data [{rid, rtype}]; PUT takes children and/or metadata, children a
//     whole list that replaces the old one; DELETE removes it;
//   - the room, its grouped_light and the v1 group share the v1 id
//     ("/groups/N", the fixture): they are two views of one object, so the
//     simulator keeps one Group and shows it both ways, and a change made
//     through either API is an event on the stream (v2events.go).
// What the bridge answers to a room taking a device another room holds is
// not documented: the simulator refuses it, as the v1 API does (error 306,
// rooms.go), with HTTP 409, which openhue-api lists for every path; the
// description is its own. v1 LightGroups have no CLIP v2 view here: no
// public source shows what a real bridge makes of them.

// v2GroupTypes are the v1 group types with a CLIP v2 view, by v2 type.
var v2GroupTypes = map[string]string{"room": TypeRoom, "zone": TypeZone}

// v2Type is the CLIP v2 type of a room or zone.
func v2Type(g *Group) string {
	if g.Type == TypeZone {
		return "zone"
	}
	return "room"
}

// v2GroupKey names a group for its CLIP v2 ids: its id and serial, so a
// new group in a deleted one's id is a new resource.
func v2GroupKey(g *Group) string { return g.ID + "#" + strconv.Itoa(g.serial) }

// archetypeOf is a v1 class as a v2 archetype ("Living room" ->
// living_room); classOf the inverse. The v2 archetypes are the v1 classes
// in snake case for the rooms both APIs list (openhue-go's RoomArchetype
// constants against the v1 class list); the simulator assumes it for all.
func archetypeOf(class string) string {
	return strings.ReplaceAll(strings.ToLower(or(class, defaultRoomClass)), " ", "_")
}

func classOf(archetype string) string {
	if archetype == "" {
		return defaultRoomClass
	}
	r := []rune(strings.ReplaceAll(archetype, "_", " "))
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// v2Groups lists the rooms and zones with their grouped_lights, in v1 id
// order. Callers hold b.mu.
func (b *Bridge) v2Groups() []resource {
	ids := make([]string, 0, len(b.groups))
	for id, g := range b.groups {
		if g.Type == TypeRoom || g.Type == TypeZone {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, c string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(c)
		return x - y
	})
	var out []resource
	for _, id := range ids {
		g := b.groups[id]
		typ, key := v2Type(g), v2GroupKey(g)
		rid, grouped := b.v2ID(typ, key), b.v2ID("grouped_light", key)
		children := make([]map[string]string, 0, len(g.Lights))
		for _, lid := range g.Lights {
			if typ == "room" {
				children = append(children, ref(b.v2ID("device", lid), "device"))
			} else {
				children = append(children, ref(b.v2ID("light", lid), "light"))
			}
		}
		services := []map[string]string{}
		if len(g.Lights) > 0 {
			services = append(services, ref(grouped, "grouped_light"))
		}
		out = append(out, resource{"id": rid, "id_v1": "/groups/" + id, "type": typ, "children": children,
			"services": services, "metadata": map[string]string{"name": g.Name, "archetype": archetypeOf(g.Class)}})
		if len(g.Lights) > 0 {
			gl := b.v2GroupedLight(grouped, rid, g.Lights)
			gl["id_v1"], gl["owner"] = "/groups/"+id, ref(rid, typ)
			out = append(out, gl)
		}
	}
	return out
}

// v2GroupByID is the room or zone of type typ with v2 id rid. Callers hold
// b.mu.
func (b *Bridge) v2GroupByID(typ, rid string) (*Group, bool) {
	for _, g := range b.groups {
		if v2GroupTypes[typ] == g.Type && b.v2ID(typ, v2GroupKey(g)) == rid {
			return g, true
		}
	}
	return nil, false
}

// groupedLightLights is the v1 group id and lights a grouped_light acts
// on: bridge_home's (group 0, every light) or a room's or zone's. Callers
// hold b.mu.
func (b *Bridge) groupedLightLights(rid string) (string, []string, bool) {
	if rid == b.v2ID("grouped_light", "0") {
		return "0", b.sortedLightIDs(), true
	}
	for _, g := range b.groups {
		if (g.Type == TypeRoom || g.Type == TypeZone) && len(g.Lights) > 0 && b.v2ID("grouped_light", v2GroupKey(g)) == rid {
			return g.ID, slices.Clone(g.Lights), true
		}
	}
	return "", nil, false
}

// roomPut is RoomPut (the same for zones): what POST and PUT take.
type roomPut struct {
	Children *[]struct {
		RID   string `json:"rid"`
		RType string `json:"rtype"`
	} `json:"children"`
	Metadata *struct {
		Name      *string `json:"name"`
		Archetype *string `json:"archetype"`
	} `json:"metadata"`
}

// lightsOf reads children as the v1 ids of their lights: devices for a
// room, light services for a zone; refusal says why a bridge answers 400.
// Callers hold b.mu.
func (b *Bridge) lightsOf(typ string, p roomPut) (lights []string, refusal string) {
	want := map[string]string{"room": "device", "zone": "light"}[typ]
	for _, c := range *p.Children {
		found := ""
		for id := range b.lights {
			if c.RType == want && b.v2ID(want, id) == c.RID {
				found = id
			}
		}
		if found == "" {
			return nil, fmt.Sprintf("invalid value for children: %s %s is not a %s of the bridge", c.RType, c.RID, want)
		}
		if !slices.Contains(lights, found) {
			lights = append(lights, found)
		}
	}
	return lights, ""
}

// validName reports whether a room's name is what metadata.name takes (1
// to 32 characters).
func validName(name string) bool { return name != "" && len(name) <= 32 }

// v2CreateGroup is POST /clip/v2/resource/{room|zone}, on the group
// budget as the v1 POST /groups is.
func (b *Bridge) v2CreateGroup(w http.ResponseWriter, r *http.Request) {
	typ := r.PathValue("type")
	raw, ok := b.v2GroupWrite(w, r)
	if !ok {
		return
	}
	var p roomPut
	if json.Unmarshal(raw, &p) != nil || p.Children == nil || p.Metadata == nil || p.Metadata.Name == nil ||
		!validName(*p.Metadata.Name) {
		b.v2GroupAnswer(w, r, raw, http.StatusBadRequest, "", "children and metadata.name (1-32 characters) are required")
		return
	}
	b.mu.Lock()
	lights, refusal := b.lightsOf(typ, p)
	status := http.StatusBadRequest
	if refusal == "" && typ == "room" {
		if other := b.roomHolding("", lights); other != "" {
			refusal, status = other, http.StatusConflict
		}
	}
	if refusal == "" && len(b.groups) >= MaxGroups {
		refusal, status = "the bridge holds as many groups as it can", http.StatusInsufficientStorage
	}
	var rid string
	if refusal == "" {
		g := &Group{ID: b.freeGroupID(), Name: *p.Metadata.Name, Type: v2GroupTypes[typ], Lights: lights, serial: b.nextGroupSerial()}
		g.Class = defaultRoomClass
		if p.Metadata.Archetype != nil {
			g.Class = classOf(*p.Metadata.Archetype)
		}
		b.groups[g.ID] = g
		rid = b.v2ID(typ, v2GroupKey(g))
	}
	b.mu.Unlock()
	if refusal != "" {
		b.v2GroupAnswer(w, r, raw, status, "", refusal)
		return
	}
	b.v2GroupAnswer(w, r, raw, http.StatusOK, rid, "")
}

// v2UpdateGroup is PUT /clip/v2/resource/{room|zone}/{id}.
func (b *Bridge) v2UpdateGroup(w http.ResponseWriter, r *http.Request) {
	typ, rid := r.PathValue("type"), r.PathValue("id")
	raw, ok := b.v2GroupWrite(w, r)
	if !ok {
		return
	}
	var p roomPut
	if json.Unmarshal(raw, &p) != nil || (p.Metadata != nil && p.Metadata.Name != nil && !validName(*p.Metadata.Name)) {
		b.v2GroupAnswer(w, r, raw, http.StatusBadRequest, "", "invalid body: metadata.name takes 1-32 characters")
		return
	}
	b.mu.Lock()
	g, found := b.v2GroupByID(typ, rid)
	status, refusal := http.StatusNotFound, "Not Found"
	if found {
		status, refusal = b.updateGroup(typ, g, p)
	}
	b.mu.Unlock()
	b.v2GroupAnswer(w, r, raw, status, rid, refusal)
}

// updateGroup applies a RoomPut to g; all or nothing. Callers hold b.mu.
func (b *Bridge) updateGroup(typ string, g *Group, p roomPut) (int, string) {
	lights := g.Lights
	if p.Children != nil {
		var refusal string
		if lights, refusal = b.lightsOf(typ, p); refusal != "" {
			return http.StatusBadRequest, refusal
		}
		if typ == "room" {
			if other := b.roomHolding(g.ID, lights); other != "" {
				return http.StatusConflict, other
			}
		}
	}
	g.Lights = lights
	if p.Metadata != nil && p.Metadata.Name != nil {
		g.Name = *p.Metadata.Name
	}
	if p.Metadata != nil && p.Metadata.Archetype != nil {
		g.Class = classOf(*p.Metadata.Archetype)
	}
	return http.StatusOK, ""
}

// roomHolding says which room (other than except) holds one of the
// lights' devices, "" when none. Callers hold b.mu.
func (b *Bridge) roomHolding(except string, lights []string) string {
	for _, g := range b.groups {
		if g.Type != TypeRoom || g.ID == except {
			continue
		}
		for _, id := range lights {
			if slices.Contains(g.Lights, id) {
				return fmt.Sprintf("device %s is already in room %s", b.v2ID("device", id), g.Name)
			}
		}
	}
	return ""
}

// v2DeleteGroup is DELETE /clip/v2/resource/{room|zone}/{id}.
func (b *Bridge) v2DeleteGroup(w http.ResponseWriter, r *http.Request) {
	typ, rid := r.PathValue("type"), r.PathValue("id")
	raw, ok := b.v2GroupWrite(w, r)
	if !ok {
		return
	}
	b.mu.Lock()
	g, found := b.v2GroupByID(typ, rid)
	if found {
		delete(b.groups, g.ID)
	}
	b.mu.Unlock()
	if !found {
		b.v2GroupAnswer(w, r, raw, http.StatusNotFound, "", "Not Found")
		return
	}
	b.v2GroupAnswer(w, r, raw, http.StatusOK, rid, "")
}

// v2GroupWrite reads a room or zone write's body and takes its slot on
// the group budget; false when it answered already (429 past the budget).
func (b *Bridge) v2GroupWrite(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	raw, _ := io.ReadAll(r.Body)
	if !b.limits.allow("/groups") {
		b.v2Refused.Add(1)
		b.recordV2(r, raw, "", http.StatusTooManyRequests)
		w.WriteHeader(http.StatusTooManyRequests)
		return nil, false
	}
	return raw, true
}

// v2GroupAnswer records a room or zone write and answers it: data
// [{rid, rtype}] on success, the refusal otherwise.
func (b *Bridge) v2GroupAnswer(w http.ResponseWriter, r *http.Request, raw []byte, status int, rid, refusal string) {
	b.recordV2(r, raw, "", status)
	if status != http.StatusOK {
		v2Error(w, status, refusal)
		return
	}
	b.notify()
	v2Answer(w, status, []map[string]string{ref(rid, r.PathValue("type"))})
}

// RoomIDV2 is the CLIP v2 id of the room or zone with v1 group id id, and
// GroupedLightIDV2 its grouped_light's ("" when there is none).
func (b *Bridge) RoomIDV2(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, ok := b.groups[id]
	if !ok {
		return ""
	}
	return b.v2ID(v2Type(g), v2GroupKey(g))
}

func (b *Bridge) GroupedLightIDV2(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, ok := b.groups[id]
	if !ok || len(g.Lights) == 0 {
		return ""
	}
	return b.v2ID("grouped_light", v2GroupKey(g))
}

// v2GroupedLight is a grouped_light owned by bridge_home (the caller sets
// another owner for a room or zone): on when any light is, its brightness
// the mean of the lights that are on.
func (b *Bridge) v2GroupedLight(id, home string, lightIDs []string) resource {
	anyOn, bri, n := false, 0.0, 0
	for _, lid := range lightIDs {
		st := b.lights[lid].State
		anyOn = anyOn || st.On
		if st.On {
			bri, n = bri+brightnessOf(st.Bri), n+1
		}
	}
	if n > 0 {
		bri = math.Round(bri/float64(n)*100) / 100
	}
	return resource{"id": id, "id_v1": "/groups/0", "type": "grouped_light", "owner": ref(home, "bridge_home"),
		"on": map[string]bool{"on": anyOn}, "dimming": map[string]float64{"brightness": bri},
		"alert": map[string]any{"action_values": []string{"breathe"}}}
}

package wire

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// The store's view of rooms and zones (openhue-api's room and zone
// schemas; aiohue's real-bridge fixture, tests/fixtures/v2_resources.json):
// a room's children are devices, whose light services are its lights; a
// zone's children are light services; each lists its grouped_light in
// services, the resource group commands go to. A room, its grouped_light
// and the v1 group share the id_v1 "/groups/N" (the fixture): Group.ID is
// that N, so a HueGroup's status.groupID reads the same on both APIs; a
// room without one (none is known) is known by its CLIP v2 id, as lights
// are (v1ID).

// v2GroupTypes are the CLIP v2 types of rooms and zones, by Group.Type.
var v2GroupTypes = map[string]string{GroupRoom: "room", GroupZone: "zone"}

// groupV1ID is a room's or zone's v1 id ("/groups/4" -> "4"), or its v2
// id when it has none.
func groupV1ID(idV1, id string) string {
	if n, ok := strings.CutPrefix(idV1, "/groups/"); ok && n != "" {
		return n
	}
	return id
}

// groups is the rooms and zones as the store has them, by v1 id order.
func (s *v2Store) groups() []Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Group{}
	for id, r := range s.resources {
		typ := GroupRoom
		switch r.Type {
		case "room":
		case "zone":
			typ = GroupZone
		default:
			continue
		}
		out = append(out, Group{ID: groupV1ID(r.IDV1, id), Name: r.Metadata.Name, Type: typ, LightIDs: s.memberLightsLocked(r)})
	}
	slices.SortFunc(out, func(a, b Group) int { return compareIDs(a.ID, b.ID) })
	return out
}

// memberLightsLocked is the v1 ids of a room's or zone's lights: a zone's
// light children, a room's devices' light services. A child the store
// does not hold is left out (the next full read has it).
func (s *v2Store) memberLightsLocked(r *v2Resource) []string {
	ids := []string{}
	add := func(rid string) {
		if l, ok := s.resources[rid]; ok && l.Type == "light" {
			ids = append(ids, v1ID(l.IDV1, rid))
		}
	}
	for _, child := range r.Children {
		switch child.RType {
		case "light":
			add(child.RID)
		case "device":
			if dev, ok := s.resources[child.RID]; ok {
				for _, svc := range dev.Services {
					if svc.RType == "light" {
						add(svc.RID)
					}
				}
			}
		}
	}
	return ids
}

// groupByV1 finds the room or zone with Group.ID id: its resource id, its
// type and its grouped_light's id ("" when it has none: no lights).
func (s *v2Store) groupByV1(id string) (rid, rtype, grouped string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rid, r := range s.resources {
		if (r.Type != "room" && r.Type != "zone") || groupV1ID(r.IDV1, rid) != id {
			continue
		}
		for _, svc := range r.Services {
			if svc.RType == "grouped_light" {
				grouped = svc.RID
			}
		}
		return rid, r.Type, grouped, true
	}
	return "", "", "", false
}

// groupByRID is the v1 id of the room or zone with resource id rid.
func (s *v2Store) groupByRID(rid string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, held := s.resources[rid]
	if !held || (r.Type != "room" && r.Type != "zone") {
		return "", false
	}
	return groupV1ID(r.IDV1, rid), true
}

// lightV1ID is the v1 id of the light with resource id rid (rid itself
// when the store does not hold it).
func (s *v2Store) lightV1ID(rid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.resources[rid]; ok && l.Type == "light" {
		return v1ID(l.IDV1, rid)
	}
	return rid
}

// hasLights reports whether the store holds any light (a full read came).
func (s *v2Store) hasLights() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byV1) > 0
}

// childrenOf is what a room (the lights' devices) or zone (the lights
// themselves) of lightIDs has as children; missing names a light the
// store does not hold.
func (s *v2Store) childrenOf(rtype string, lightIDs []string) (children []v2Ref, missing string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	children = []v2Ref{}
	for _, id := range lightIDs {
		rid, ok := s.byV1[id]
		l, held := s.resources[rid]
		if !ok || !held {
			return nil, id
		}
		ref := v2Ref{RID: rid, RType: "light"}
		if rtype == "room" {
			ref = v2Ref{RID: l.Owner.RID, RType: "device"}
		}
		if !slices.Contains(children, ref) {
			children = append(children, ref)
		}
	}
	return children, ""
}

// replaceType takes a read of every resource of one type, at at.
func (s *v2Store) replaceType(rtype string, list []json.RawMessage, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, r := range s.resources {
		if r.Type == rtype {
			s.size -= r.size
			delete(s.resources, id)
		}
	}
	for _, raw := range list {
		if r, ok := decodeKept(raw); ok && r.Type == rtype {
			s.put(r)
			s.changedAt[r.ID] = at
		}
	}
}

// remove drops a resource the bridge deleted.
func (s *v2Store) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.resources[id]; ok {
		s.size -= old.size
		delete(s.resources, id)
	}
}

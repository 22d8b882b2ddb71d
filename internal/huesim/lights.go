package huesim

import (
	"encoding/json"
	"io"
	"net/http"
)

// The v1 lights resource: GET /lights[/<id>], a rename, and the state
// command. What a bulb makes of a command is the bulb model's
// (lightstate.go); this file is the API around it.

// lightJSON is a light as GET /lights reports it: a BSB002's shape, with
// only the state fields its type has and any the test made it leave out.
func lightJSON(l *Light) map[string]any {
	m := l.model()
	state := l.State.fields()
	reported := map[string]any{}
	for _, k := range m.stateKeys() {
		if !l.omit[k] {
			reported[k] = state[k]
		}
	}
	return map[string]any{
		"state": reported,
		"swupdate": map[string]any{
			"state": "noupdates", "lastinstall": "2021-01-01T00:00:00",
		},
		"type":             m.Type,
		"name":             l.Name,
		"modelid":          m.ID,
		"manufacturername": m.Manufacturer,
		"productname":      m.ProductName,
		"capabilities": map[string]any{
			"certified": m.Manufacturer != "GLEDOPTO",
			"control":   m.control(),
			"streaming": map[string]bool{"renderer": m.colour(), "proxy": m.colour()},
		},
		"config": map[string]any{
			"archetype": m.Archetype, "function": "mixed", "direction": "omnidirectional",
			"startup": map[string]any{"mode": "safety", "configured": true},
		},
		"uniqueid":   l.UniqueID,
		"swversion":  "1.88.1",
		"swconfigid": "F0D2E6D7",
		"productid":  "Philips-" + m.ID + "-1-A19ECLv5",
	}
}

// lightsJSON is the id -> light map. Callers hold b.mu.
func (b *Bridge) lightsJSON() map[string]any {
	out := make(map[string]any, len(b.lights))
	for id, l := range b.lights {
		out[id] = lightJSON(l)
	}
	return out
}

func (b *Bridge) getLights(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	writeJSON(w, http.StatusOK, b.lightsJSON())
}

func (b *Bridge) getLight(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusOK, []result{notAvailable(resourcePath(r))})
		return
	}
	writeJSON(w, http.StatusOK, lightJSON(l))
}

func (b *Bridge) renameLight(w http.ResponseWriter, r *http.Request) {
	addr := resourcePath(r)
	raw, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	res := []result{}
	b.mu.Lock()
	l, ok := b.lights[r.PathValue("id")]
	var name string
	switch {
	case !ok:
		res = append(res, notAvailable(addr))
	case json.Unmarshal(raw, &body) != nil:
		res = append(res, failure(ErrInvalidJSON, "", "body contains invalid json"))
	case json.Unmarshal(body["name"], &name) != nil || name == "" || len(name) > 32:
		res = append(res, invalidValue(addr+"/name", "name", string(body["name"])))
	default:
		l.Name = name
		res = append(res, success(addr+"/name", name))
	}
	b.mu.Unlock()
	b.record(r, addr, raw, res)
	b.notify()
	writeJSON(w, http.StatusOK, res)
}

func (b *Bridge) putLightState(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[r.PathValue("id")]
	if !ok {
		return []result{notAvailable("/lights/" + r.PathValue("id"))}
	}
	return applyState(&l.State, l.model(), l.strict, addr, body, lightCommand)
}

package huesim

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// Scenes of the v1 API as the bridge stores them since 1.29 (lightstates).
// Source: the Hue API v1 reference, 4. Scenes API (a markdown copy of the
// developer documentation; index id 68437709992), unless a comment says
// otherwise:
//   - POST /scenes {name, type LightScene (default) | GroupScene, lights,
//     group, recycle (false when omitted), appdata, lightstates} answers
//     [{"success":{"id":"<id>"}}]. A light of the scene without a lightstate
//     gets the light's current state. An unknown light is error 7 and the
//     scene is not created.
//   - "The bridge can support up to 200 scenes, however ... there is a
//     maximum of 2048 scene lightstates" (also node-hue-api docs/scenes.md).
//     When full, a recyclable scene is dropped, the one used least; with
//     none, error 402 "Scene could not be created. Scene buffer in bridge
//     full" (the v1 error list, index id 20281798391).
//   - GET /scenes lists scenes without lightstates; GET /scenes/<id> has
//     them. PUT /scenes/<id> changes name, lights (new lights get their
//     current state, as of 1.15), lightstates and storelightstate;
//     PUT /scenes/<id>/lightstates/<light> one light's state. DELETE
//     /scenes/<id> answers [{"success":"/scenes/<id> deleted"}].
//   - A scene is recalled with the Groups API: PUT /groups/<id>/action
//     {"scene": "<id>"} sets "all lights that are in group <id> AND are part
//     of the specified scene" (group 0: every light of the scene), answered
//     [{"success":{"/groups/<id>/action/scene":"<id>"}}]; as of 1.36 a
//     transitiontime beside it applies to the recall. It is a group command,
//     on the group budget.
// What the bridge answers for an unknown scene in a recall is not in those
// sources: the simulator answers error 7 (invalid value for parameter
// scene), as for any value the bridge cannot use.

// Scene limits of a bridge.
const (
	MaxScenes           = 200
	MaxSceneLightStates = 2048
	// ErrSceneBufferFull is error 402: no room for the scene.
	ErrSceneBufferFull = 402
)

// Scene types.
const (
	TypeLightScene = "LightScene"
	TypeGroupScene = "GroupScene"
)

// currentSceneState is what a scene stores for a light given no lightstate:
// its current state, with the colour of its colour mode.
func currentSceneState(l *Light) SceneState {
	st := l.State
	on := st.On
	out := SceneState{On: &on}
	m := l.model()
	if m.dimmable() {
		out.Bri = &st.Bri
	}
	switch {
	case st.ColorMode == "xy" && m.colour():
		out.XY = &st.XY
	case st.ColorMode == "hs" && m.colour():
		out.Hue, out.Sat = &st.Hue, &st.Sat
	case st.ColorMode == "ct" && m.colourTemperature():
		out.CT = &st.CT
	}
	return out
}

// sceneRoutes registers the scenes API on the bridge's mux.
func (b *Bridge) sceneRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/{user}/scenes", b.authed(b.getScenes))
	mux.HandleFunc("POST /api/{user}/scenes", b.authed(b.command(b.createScene)))
	mux.HandleFunc("GET /api/{user}/scenes/{id}", b.authed(b.getScene))
	mux.HandleFunc("PUT /api/{user}/scenes/{id}", b.authed(b.command(b.modifyScene)))
	mux.HandleFunc("PUT /api/{user}/scenes/{id}/lightstates/{light}", b.authed(b.command(b.modifySceneLight)))
	mux.HandleFunc("DELETE /api/{user}/scenes/{id}", b.authed(b.command(b.deleteScene)))
}

func (b *Bridge) getScenes(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	writeJSON(w, http.StatusOK, b.scenesJSON())
}

func (b *Bridge) getScene(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sc, ok := b.scenes[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusOK, []result{notAvailable(resourcePath(r))})
		return
	}
	out := sceneJSON(sc)
	out["lightstates"] = sc.States
	writeJSON(w, http.StatusOK, out)
}

// scenesJSON is the id -> scene map of GET /scenes. Callers hold b.mu.
func (b *Bridge) scenesJSON() map[string]any {
	out := make(map[string]any, len(b.scenes))
	for id, sc := range b.scenes {
		out[id] = sceneJSON(sc)
	}
	return out
}

func sceneJSON(sc *Scene) map[string]any {
	out := map[string]any{
		"name": sc.Name, "type": sc.Type, "lights": sc.Lights, "owner": sc.Owner, "recycle": sc.Recycle,
		"locked": false, "appdata": map[string]any{}, "picture": "", "version": 2,
		"lastupdated": timestamp(sc.LastUpdated),
	}
	if sc.Type == TypeGroupScene {
		out["group"] = sc.Group
	}
	if sc.AppData != nil {
		out["appdata"] = sc.AppData
	}
	return out
}

// createScene is POST /scenes.
func (b *Bridge) createScene(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	sc := Scene{Type: TypeLightScene, Owner: r.PathValue("user"), States: map[string]SceneState{}}
	if raw, ok := body["type"]; ok && (json.Unmarshal(raw, &sc.Type) != nil || (sc.Type != TypeLightScene && sc.Type != TypeGroupScene)) {
		return []result{invalidValue(addr+"/type", "type", string(raw))}
	}
	if raw, ok := body["name"]; ok && (json.Unmarshal(raw, &sc.Name) != nil || sc.Name == "" || len(sc.Name) > 32) {
		return []result{invalidValue(addr+"/name", "name", string(raw))}
	}
	if raw, ok := body["recycle"]; ok && json.Unmarshal(raw, &sc.Recycle) != nil {
		return []result{invalidValue(addr+"/recycle", "recycle", string(raw))}
	}
	if raw, ok := body["appdata"]; ok {
		var ad SceneAppData
		if json.Unmarshal(raw, &ad) != nil || len(ad.Data) > 16 {
			return []result{invalidValue(addr+"/appdata", "appdata", string(raw))}
		}
		sc.AppData = &ad
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if res := b.sceneLights(&sc, addr, body); res != nil {
		return res
	}
	if res := b.storeStates(&sc, addr, body["lightstates"]); res != nil {
		return res
	}
	if !b.makeRoomForScene(len(sc.States)) {
		return []result{failure(ErrSceneBufferFull, addr, "Scene could not be created. Scene buffer in bridge full")}
	}
	sc.ID = b.freeSceneID()
	if sc.Name == "" {
		sc.Name = sc.ID
	}
	sc.LastUpdated = time.Now()
	b.scenes[sc.ID] = &sc
	return []result{{"success": map[string]any{"id": sc.ID}}}
}

// sceneLights sets the scene's lights: a LightScene's from the body (at
// least one, each known), a GroupScene's from its group (which must
// exist; its lights may not be given). Callers hold b.mu.
func (b *Bridge) sceneLights(sc *Scene, addr string, body map[string]json.RawMessage) []result {
	if sc.Type == TypeGroupScene {
		if _, given := body["lights"]; given {
			return []result{failure(ErrParameterNotAvail, addr+"/lights", "parameter, lights, not available")}
		}
		raw := body["group"]
		if json.Unmarshal(raw, &sc.Group) != nil {
			return []result{failure(ErrMissingParameters, addr, "invalid/missing parameters in body")}
		}
		g, ok := b.groups[sc.Group]
		if !ok {
			return []result{invalidValue(addr+"/group", "group", sc.Group)}
		}
		sc.Lights = slices.Clone(g.Lights)
		return nil
	}
	raw, ok := body["lights"]
	if !ok || json.Unmarshal(raw, &sc.Lights) != nil || len(sc.Lights) == 0 {
		return []result{failure(ErrMissingParameters, addr, "invalid/missing parameters in body")}
	}
	for _, id := range sc.Lights {
		if _, known := b.lights[id]; !known {
			return []result{invalidValue(addr+"/lights", "lights", id)}
		}
	}
	return nil
}

// storeStates fills the scene's lightstates: those given (for lights of
// the scene only), the current state for the others. Callers hold b.mu.
func (b *Bridge) storeStates(sc *Scene, addr string, raw json.RawMessage) []result {
	var given map[string]json.RawMessage
	if raw != nil && json.Unmarshal(raw, &given) != nil {
		return []result{invalidValue(addr+"/lightstates", "lightstates", string(raw))}
	}
	for id, s := range given {
		if !slices.Contains(sc.Lights, id) {
			return []result{invalidValue(addr+"/lightstates/"+id, "lightstates", id)}
		}
		st, param, ok := parseSceneState(s)
		if !ok {
			return []result{invalidValue(addr+"/lightstates/"+id+"/"+param, param, string(s))}
		}
		sc.States[id] = st
	}
	for _, id := range sc.Lights {
		if _, ok := sc.States[id]; !ok {
			sc.States[id] = currentSceneState(b.lights[id])
		}
	}
	return nil
}

// makeRoomForScene reports whether a scene of n lightstates fits, recycling
// the least used recyclable scenes when the bridge is full. Callers hold b.mu.
func (b *Bridge) makeRoomForScene(n int) bool {
	for {
		states := 0
		for _, sc := range b.scenes {
			states += len(sc.States)
		}
		if len(b.scenes) < MaxScenes && states+n <= MaxSceneLightStates {
			return true
		}
		var victim *Scene
		for _, sc := range b.scenes {
			if sc.Recycle && (victim == nil || sc.lastUsed.Before(victim.lastUsed)) {
				victim = sc
			}
		}
		if victim == nil {
			return false
		}
		delete(b.scenes, victim.ID)
	}
}

// sceneIDChars are the characters of a scene id ("3T2SvsxvwteNNys").
const sceneIDChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// freeSceneID is a new random 15-character id. Callers hold b.mu.
func (b *Bridge) freeSceneID() string {
	for {
		raw := randomHex(15)
		id := make([]byte, 15)
		for i := range id {
			id[i] = sceneIDChars[int(raw[2*i]+raw[2*i+1])%len(sceneIDChars)]
		}
		if _, used := b.scenes[string(id)]; !used {
			return string(id)
		}
	}
}

// modifyScene is PUT /scenes/<id>: name, lights, lightstates and
// storelightstate, answered attribute by attribute.
func (b *Bridge) modifyScene(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	sc, ok := b.scenes[r.PathValue("id")]
	if !ok {
		return []result{notAvailable(addr)}
	}
	next := *sc
	next.States = maps.Clone(sc.States)
	var out []result
	if raw, ok := body["lights"]; ok && sc.Type == TypeLightScene {
		if res := b.sceneLights(&next, addr, body); res != nil {
			return res
		}
		for id := range next.States {
			if !slices.Contains(next.Lights, id) {
				delete(next.States, id)
			}
		}
		out = append(out, success(addr+"/lights", json.RawMessage(raw)))
	}
	if raw, ok := body["lightstates"]; ok {
		if res := b.storeStates(&next, addr, raw); res != nil {
			return res
		}
		out = append(out, lightstateSuccesses(addr, raw)...)
	} else if res := b.storeStates(&next, addr, nil); res != nil {
		return res
	}
	if raw, ok := body["storelightstate"]; ok {
		var store bool
		if json.Unmarshal(raw, &store) != nil {
			return []result{invalidValue(addr+"/storelightstate", "storelightstate", string(raw))}
		}
		if store {
			for _, id := range next.Lights {
				next.States[id] = currentSceneState(b.lights[id])
			}
		}
		out = append(out, success(addr+"/storelightstate", store))
	}
	if raw, ok := body["name"]; ok {
		var name string
		if json.Unmarshal(raw, &name) != nil || name == "" || len(name) > 32 {
			return []result{invalidValue(addr+"/name", "name", string(raw))}
		}
		next.Name = name
		out = append(out, success(addr+"/name", name))
	}
	next.LastUpdated = time.Now()
	*sc = next
	return out
}

// lightstateSuccesses answers a stored lightstates object attribute by
// attribute: /scenes/<id>/lightstates/<light>/<attr>.
func lightstateSuccesses(addr string, raw json.RawMessage) []result {
	var given map[string]map[string]json.RawMessage
	_ = json.Unmarshal(raw, &given)
	ids := slices.Sorted(maps.Keys(given))
	var out []result
	for _, id := range ids {
		for _, k := range sceneStateKeys {
			if v, ok := given[id][k]; ok {
				out = append(out, success(fmt.Sprintf("%s/lightstates/%s/%s", addr, id, k), v))
			}
		}
	}
	return out
}

// modifySceneLight is PUT /scenes/<id>/lightstates/<light>: the attributes
// given replace those stored.
func (b *Bridge) modifySceneLight(r *http.Request, addr string, body map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	sc, ok := b.scenes[r.PathValue("id")]
	light := r.PathValue("light")
	if !ok || !slices.Contains(sc.Lights, light) {
		return []result{notAvailable(addr)}
	}
	merged := sc.States[light].body()
	maps.Copy(merged, body)
	raw, _ := json.Marshal(merged)
	st, param, ok := parseSceneState(raw)
	if !ok {
		return []result{invalidValue(addr+"/"+param, param, string(body[param]))}
	}
	sc.States[light] = st
	sc.LastUpdated = time.Now()
	var out []result
	for _, k := range sceneStateKeys {
		if v, given := body[k]; given {
			out = append(out, success(addr+"/"+k, v))
		}
	}
	return out
}

// deleteScene is DELETE /scenes/<id>.
func (b *Bridge) deleteScene(r *http.Request, addr string, _ map[string]json.RawMessage) []result {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := r.PathValue("id")
	if _, ok := b.scenes[id]; !ok {
		return []result{notAvailable(addr)}
	}
	delete(b.scenes, id)
	for g, sid := range b.recalled {
		if sid == id {
			delete(b.recalled, g)
		}
	}
	return []result{{"success": addr + " deleted"}}
}

// recallScene is a group action with "scene": each light of both the group
// and the scene takes its lightstate as far as the bulb can, as a group
// action does. Callers hold b.mu.
func (b *Bridge) recallScene(groupID, addr string, body map[string]json.RawMessage) []result {
	var sid string
	raw := body["scene"]
	sc, ok := (*Scene)(nil), false
	if json.Unmarshal(raw, &sid) == nil {
		sc, ok = b.scenes[sid]
	}
	if !ok {
		return []result{invalidValue(addr+"/scene", "scene", string(raw))}
	}
	lights, _ := b.groupLights(groupID)
	out := []result{success(addr+"/scene", sid)}
	var transition *int
	if raw, ok := body["transitiontime"]; ok {
		t, valid := intValue(raw, intRanges["transitiontime"])
		if !valid {
			return []result{invalidValue(addr+"/transitiontime", "transitiontime", string(raw))}
		}
		transition = &t
		out = append(out, success(addr+"/transitiontime", t))
	}
	for _, id := range lights {
		st, inScene := sc.States[id]
		l, known := b.lights[id]
		if !inScene || !known {
			continue
		}
		if transition != nil {
			st.TransitionTime = transition
		}
		applyState(&l.State, l.model(), l.strict, addr, st.body(), groupAction)
	}
	sc.lastUsed = time.Now()
	b.recalled[groupID] = sid
	return out
}

// shows reports whether every light of both the group and the scene shows
// its lightstate: applying it again would change nothing. Callers hold b.mu.
func (b *Bridge) shows(groupID string, sc *Scene) bool {
	lights, _ := b.groupLights(groupID)
	for _, id := range lights {
		st, inScene := sc.States[id]
		l, known := b.lights[id]
		if !inScene || !known {
			continue
		}
		again := l.State
		applyState(&again, l.model(), l.strict, "", st.body(), groupAction)
		if again != l.State {
			return false
		}
	}
	return true
}

// ActiveScene is the name of the scene last recalled on the group, while
// its lights still show it ("" otherwise): what the Hue app marks active.
func (b *Bridge) ActiveScene(groupID string) string {
	defer b.lockView()()
	return b.activeSceneLocked(groupID)
}

func (b *Bridge) activeSceneLocked(groupID string) string {
	sc, ok := b.scenes[b.recalled[groupID]]
	if !ok || !b.shows(groupID, sc) {
		return ""
	}
	return sc.Name
}

// Scenes returns the scenes on the bridge, by id.
func (b *Bridge) Scenes() map[string]Scene {
	defer b.lockView()()
	out := make(map[string]Scene, len(b.scenes))
	for id, sc := range b.scenes {
		c := *sc
		c.Lights = slices.Clone(sc.Lights)
		c.States = maps.Clone(sc.States)
		out[id] = c
	}
	return out
}

// AddScene stores a LightScene as the Hue app would (the lights' current
// states, recycle false), outside the API's budget; it returns the scene's
// id, or "" when the bridge holds no more.
func (b *Bridge) AddScene(name string, lights ...string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := &Scene{Type: TypeLightScene, Name: name, Owner: "hue-app", States: map[string]SceneState{},
		Lights: slices.Clone(lights), LastUpdated: time.Now()}
	for _, id := range lights {
		if l, ok := b.lights[id]; ok {
			sc.States[id] = currentSceneState(l)
		}
	}
	if !b.makeRoomForScene(len(sc.States)) {
		return ""
	}
	sc.ID = b.freeSceneID()
	b.scenes[sc.ID] = sc
	return sc.ID
}

package huesim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"time"
)

// Scenes in CLIP v2 (openhue-api's src/scene, as openhue/openhue-go v0.4.0
// transcribes it in SceneGet, ScenePost and ScenePut; aiohue's models
// scene.py; aiohue's real-bridge fixture, tests/fixtures/v2_resources.json):
//   - a scene belongs to one room or zone (group {rid, rtype}) and holds an
//     action per light: {target {rid, rtype light}, action {on, dimming,
//     color {xy} | color_temperature {mirek}, dynamics {duration}}};
//     metadata {name 1-32 characters, appdata 1-16}; POST takes group,
//     actions and metadata (required) and answers data [{rid, rtype}]; PUT
//     takes actions, metadata and recall, but no group; DELETE removes it;
//   - palette, speed, auto_dynamic and the actions' effects and gradients
//     as v2sceneoptions.go says;
//   - PUT recall {action active|static|dynamic_palette, duration ms} shows
//     it on its group's lights; GET shows status {active inactive|static}.
// A v2 scene is the v1 GroupScene of its id_v1 ("/scenes/<id>", the
// fixture): the simulator keeps one Scene and shows it both ways. A v1
// LightScene has no group, so no CLIP v2 view here (what real bridges make
// of one is not documented); neither has a lightstate's hue/sat (v2 has
// only xy). A recall is a group command, on the group budget, as v1's is
// (rate.go).

// v2Scenes lists the GroupScenes of rooms and zones as CLIP v2 scenes.
// Callers hold b.mu.
func (b *Bridge) v2Scenes() []resource {
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range b.scenes {
			if !yield(id) {
				return
			}
		}
	})
	var out []resource
	for _, id := range ids {
		sc := b.scenes[id]
		g, ok := b.groups[sc.Group]
		if sc.Type != TypeGroupScene || !ok || (g.Type != TypeRoom && g.Type != TypeZone) {
			continue
		}
		actions := []map[string]any{}
		for _, lid := range sortedStateIDs(sc.States) {
			action := v2Action(sc.States[lid])
			sc.V2.actionJSON(lid, action)
			actions = append(actions, map[string]any{"target": ref(b.v2ID("light", lid), "light"), "action": action})
		}
		meta := map[string]any{"name": sc.Name}
		if sc.AppData != nil && sc.AppData.Data != "" {
			meta["appdata"] = sc.AppData.Data
		}
		active := "inactive"
		if b.recalled[sc.Group] == id && b.shows(sc.Group, sc) {
			active = "static"
		}
		out = append(out, resource{"id": b.v2ID("scene", id), "id_v1": "/scenes/" + id, "type": "scene",
			"group": ref(b.v2ID(v2Type(g), v2GroupKey(g)), v2Type(g)), "metadata": meta, "actions": actions,
			"palette": sc.V2.Palette.json(), "speed": sc.V2.Speed, "auto_dynamic": sc.V2.AutoDynamic,
			"status": map[string]string{"active": active}})
	}
	return out
}

func sortedStateIDs(states map[string]SceneState) []string {
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareNumeric)
	return ids
}

func compareNumeric(a, c string) int {
	var x, y int
	_, _ = fmt.Sscan(a, &x)
	_, _ = fmt.Sscan(c, &y)
	return x - y
}

// v2Action is a lightstate as a scene action.
func v2Action(st SceneState) map[string]any {
	a := map[string]any{}
	if st.On != nil {
		a["on"] = map[string]bool{"on": *st.On}
	}
	if st.Bri != nil {
		a["dimming"] = map[string]float64{"brightness": brightnessOf(*st.Bri)}
	}
	if st.XY != nil {
		a["color"] = map[string]any{"xy": map[string]float64{"x": st.XY[0], "y": st.XY[1]}}
	}
	if st.CT != nil {
		a["color_temperature"] = map[string]int{"mirek": *st.CT}
	}
	if st.TransitionTime != nil {
		a["dynamics"] = map[string]int{"duration": *st.TransitionTime * 100}
	}
	return a
}

// scenePut is ScenePost and ScenePut: what POST and PUT take.
type scenePut struct {
	Metadata *struct {
		Name    *string `json:"name"`
		AppData *string `json:"appdata"`
	} `json:"metadata"`
	Group *struct {
		RID   string `json:"rid"`
		RType string `json:"rtype"`
	} `json:"group"`
	Actions *[]struct {
		Target struct {
			RID   string `json:"rid"`
			RType string `json:"rtype"`
		} `json:"target"`
		Action lightPut `json:"action"`
	} `json:"actions"`
	Recall *struct {
		Action   string `json:"action"`
		Duration *int   `json:"duration"`
	} `json:"recall"`
	sceneOptionsPut
}

// states reads the actions as lightstates by v1 light id, and their
// effects and gradients into v2; refusal says why a bridge answers 400.
// Callers hold b.mu.
func (b *Bridge) states(p scenePut, v2 *SceneV2) (map[string]SceneState, string) {
	out := map[string]SceneState{}
	v2.Effects, v2.Gradients = map[string]string{}, map[string]Gradient{}
	for _, a := range *p.Actions {
		id := ""
		for lid := range b.lights {
			if a.Target.RType == "light" && b.v2ID("light", lid) == a.Target.RID {
				id = lid
			}
		}
		if id == "" {
			return nil, fmt.Sprintf("invalid value for actions: %s %s is not a light of the bridge", a.Target.RType, a.Target.RID)
		}
		body, refusal := a.Action.v1Body(b.lights[id].model())
		if refusal != "" {
			return nil, refusal
		}
		effect, gradient, refusal := actionExtras(b.lights[id].model(), a.Action)
		if refusal != "" {
			return nil, refusal
		}
		if effect != "" {
			v2.Effects[id] = effect
		}
		if gradient != nil {
			v2.Gradients[id] = *gradient
		}
		raw, _ := json.Marshal(body)
		st, _, _ := parseSceneState(raw)
		out[id] = st
	}
	return out, ""
}

// v2CreateScene is POST /clip/v2/resource/scene.
func (b *Bridge) v2CreateScene(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var p scenePut
	if json.Unmarshal(raw, &p) != nil || p.Metadata == nil || p.Metadata.Name == nil || !validName(*p.Metadata.Name) ||
		p.Group == nil || p.Actions == nil || (p.Metadata.AppData != nil && len(*p.Metadata.AppData) > 16) {
		b.v2SceneAnswer(w, r, raw, http.StatusBadRequest, "", "group, actions and metadata.name (1-32 characters) are required")
		return
	}
	b.mu.Lock()
	status, rid, refusal := b.createV2Scene(p, r.Header.Get("hue-application-key"))
	b.mu.Unlock()
	b.v2SceneAnswer(w, r, raw, status, rid, refusal)
}

// createV2Scene stores a POSTed scene as a GroupScene. Callers hold b.mu.
func (b *Bridge) createV2Scene(p scenePut, owner string) (int, string, string) {
	g, ok := b.v2GroupByID(p.Group.RType, p.Group.RID)
	if !ok {
		return http.StatusBadRequest, "", fmt.Sprintf("invalid value for group: no %s %s", p.Group.RType, p.Group.RID)
	}
	v2 := SceneV2{Speed: defaultSceneSpeed}
	states, refusal := b.states(p, &v2)
	if refusal == "" {
		refusal = p.sceneOptionsPut.refusal()
	}
	if refusal != "" {
		return http.StatusBadRequest, "", refusal
	}
	p.sceneOptionsPut.apply(&v2)
	if !b.makeRoomForScene(len(states)) {
		return http.StatusInsufficientStorage, "", "scene buffer in bridge full"
	}
	sc := &Scene{ID: b.freeSceneID(), Name: *p.Metadata.Name, Type: TypeGroupScene, Group: g.ID, Owner: owner,
		States: states, V2: v2, Lights: sortedStateIDs(states), LastUpdated: time.Now()}
	if p.Metadata.AppData != nil {
		sc.AppData = &SceneAppData{Version: 1, Data: *p.Metadata.AppData}
	}
	b.scenes[sc.ID] = sc
	return http.StatusOK, b.v2ID("scene", sc.ID), ""
}

// v2UpdateScene is PUT /clip/v2/resource/scene/{id}: actions and metadata
// (all or nothing), or a recall.
func (b *Bridge) v2UpdateScene(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rid := r.PathValue("id")
	var p scenePut
	if json.Unmarshal(raw, &p) != nil || p.Group != nil {
		b.v2SceneAnswer(w, r, raw, http.StatusBadRequest, "", "invalid body (a scene's group cannot change)")
		return
	}
	b.mu.Lock()
	sc := b.v2SceneByID(rid)
	b.mu.Unlock()
	if sc == nil {
		b.v2SceneAnswer(w, r, raw, http.StatusNotFound, "", "Not Found")
		return
	}
	if p.Recall != nil && !b.limits.allow("/groups/"+sc.Group+"/action") {
		b.v2Refused.Add(1)
		b.recordV2(r, raw, "", http.StatusTooManyRequests)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	b.mu.Lock()
	status, refusal := b.updateV2Scene(sc, p)
	b.mu.Unlock()
	b.v2SceneAnswer(w, r, raw, status, rid, refusal)
}

// updateV2Scene applies a ScenePut. Callers hold b.mu.
func (b *Bridge) updateV2Scene(sc *Scene, p scenePut) (int, string) {
	if p.Metadata != nil && ((p.Metadata.Name != nil && !validName(*p.Metadata.Name)) ||
		(p.Metadata.AppData != nil && len(*p.Metadata.AppData) > 16)) {
		return http.StatusBadRequest, "invalid value for metadata"
	}
	if refusal := p.sceneOptionsPut.refusal(); refusal != "" {
		return http.StatusBadRequest, refusal
	}
	v2 := sc.V2
	if p.Actions != nil {
		states, refusal := b.states(p, &v2)
		if refusal != "" {
			return http.StatusBadRequest, refusal
		}
		sc.States, sc.Lights, sc.LastUpdated = states, sortedStateIDs(states), time.Now()
	}
	p.sceneOptionsPut.apply(&v2)
	sc.V2 = v2
	if p.Metadata != nil && p.Metadata.Name != nil {
		sc.Name = *p.Metadata.Name
	}
	if p.Metadata != nil && p.Metadata.AppData != nil {
		sc.AppData = &SceneAppData{Version: 1, Data: *p.Metadata.AppData}
	}
	if p.Recall != nil {
		body := map[string]json.RawMessage{"scene": json.RawMessage(fmt.Sprintf("%q", sc.ID))}
		if d := p.Recall.Duration; d != nil {
			if *d < 0 || *d > maxDuration {
				return http.StatusBadRequest, fmt.Sprintf("invalid value for recall.duration: %d", *d)
			}
			body["transitiontime"] = json.RawMessage(fmt.Sprint(int(math.Round(float64(*d) / 100))))
		}
		if res := b.recallScene(sc.Group, "/groups/"+sc.Group+"/action", body); len(res) == 0 || res[0]["success"] == nil {
			return http.StatusBadRequest, "the scene cannot be recalled"
		}
	}
	return http.StatusOK, ""
}

// v2DeleteScene is DELETE /clip/v2/resource/scene/{id}.
func (b *Bridge) v2DeleteScene(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rid := r.PathValue("id")
	b.mu.Lock()
	sc := b.v2SceneByID(rid)
	if sc != nil {
		delete(b.scenes, sc.ID)
		delete(b.recalled, sc.Group)
	}
	b.mu.Unlock()
	if sc == nil {
		b.v2SceneAnswer(w, r, raw, http.StatusNotFound, "", "Not Found")
		return
	}
	b.v2SceneAnswer(w, r, raw, http.StatusOK, rid, "")
}

// v2SceneByID is the scene with CLIP v2 id rid that has a CLIP v2 view.
// Callers hold b.mu.
func (b *Bridge) v2SceneByID(rid string) *Scene {
	for id, sc := range b.scenes {
		if b.v2ID("scene", id) == rid && sc.Type == TypeGroupScene {
			if _, ok := b.groups[sc.Group]; ok {
				return sc
			}
		}
	}
	return nil
}

// v2SceneAnswer records a scene write and answers it.
func (b *Bridge) v2SceneAnswer(w http.ResponseWriter, r *http.Request, raw []byte, status int, rid, refusal string) {
	b.recordV2(r, raw, "", status)
	if status != http.StatusOK {
		v2Error(w, status, refusal)
		return
	}
	b.notify()
	v2Answer(w, status, []map[string]string{ref(rid, "scene")})
}

// SceneIDV2 is the CLIP v2 id of the scene with v1 id id.
func (b *Bridge) SceneIDV2(id string) string { return b.v2ID("scene", id) }

// actionExtras reads an action's effect and gradient for light l, or says
// why a v2 bridge answers 400.
func actionExtras(m Model, a lightPut) (string, *Gradient, string) {
	effect := a.effect()
	if effect != "" {
		if why := effectRefusal(m, effect); why != "" {
			return "", nil, why
		}
	}
	if a.Gradient == nil {
		return effect, nil, ""
	}
	g, why := decodeGradient(m, a.Gradient)
	if why != "" {
		return "", nil, why
	}
	return effect, &g, ""
}

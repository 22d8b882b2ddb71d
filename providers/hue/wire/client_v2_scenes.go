package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/tether-dev/tether/providers/hue/model"
)

// Scenes of a room or zone on a CLIP v2 bridge are CLIP v2 scenes
// (openhue-api's src/scene; aiohue's models scene.py and its real-bridge
// fixture, tests/fixtures/v2_resources.json): a scene belongs to one room
// or zone (group {rid, rtype}) and holds an action per light (on, dimming,
// color.xy or color_temperature.mirek, dynamics.duration, and for lights
// that have them effects.effect and gradient, as a light PUT carries them),
// and a palette, speed and auto_dynamic (scene_options.go); metadata {name,
// appdata 1-16 characters} carries Tether's mark; a PUT takes actions and
// metadata but no group; PUT recall {action: active, duration} shows it.
// A v2 scene and the v1 scene of its id_v1 ("/scenes/<id>") are one object,
// so Scene.ID is that v1 id, as Group.ID is a room's (client_v2_rooms.go).
//
// A scene without a room or zone (SceneSpec.GroupID "": the session's
// temporary scenes across a bridge's lights, while it serves v1) has no
// CLIP v2 form that its clients would not see while it exists, and stays
// a v1 LightScene; so
// does one Tether stored before it spoke CLIP v2's scenes (found by id
// through v1 while the bridge serves v1).

// v2Scene is the part of a scene resource Tether reads.
type v2Scene struct {
	ID       string `json:"id"`
	IDV1     string `json:"id_v1"`
	Group    v2Ref  `json:"group"`
	Metadata struct {
		Name    string `json:"name"`
		AppData string `json:"appdata"`
	} `json:"metadata"`
	Actions     []v2SceneAction `json:"actions"`
	Palette     *v2Palette      `json:"palette"`
	Speed       *float64        `json:"speed"`
	AutoDynamic *bool           `json:"auto_dynamic"`
}

type v2SceneAction struct {
	Target v2Ref `json:"target"`
	Action struct {
		On *struct {
			On bool `json:"on"`
		} `json:"on,omitempty"`
		Dimming *struct {
			Brightness float64 `json:"brightness"`
		} `json:"dimming,omitempty"`
		Color *struct {
			XY *v2XY `json:"xy"`
		} `json:"color,omitempty"`
		ColorTemperature *struct {
			Mirek *int `json:"mirek"`
		} `json:"color_temperature,omitempty"`
		Dynamics *struct {
			Duration *int `json:"duration"`
		} `json:"dynamics,omitempty"`
		Effects *struct {
			Effect *string `json:"effect"`
		} `json:"effects,omitempty"`
		Gradient *v2Gradient `json:"gradient,omitempty"`
	} `json:"action"`
}

// sceneIDs maps the v1 id of each v2 scene to its resource id, as of the
// last listing and the scenes read since, and knows the v1 scenes this client stored or listed
// through v1 (temporary scenes), so that those cost no listing.
type sceneIDs struct {
	mu   sync.Mutex
	byV1 map[string]string
	v1   map[string]bool
}

// markV1 records ids as v1 scenes.
func (s *sceneIDs) markV1(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.v1 == nil {
		s.v1 = map[string]bool{}
	}
	for _, id := range ids {
		s.v1[id] = true
	}
}

// v1IDs are the scene ids of refs (RID the resource id, RType its id_v1
// when the event carried one): a deleted scene's by the last listing.
func (s *sceneIDs) v1IDs(refs []v2Ref) []string {
	if len(refs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		id := sceneV1ID(r.RType, r.RID)
		if r.RType == "" {
			for v1, rid := range s.byV1 {
				if rid == r.RID {
					id = v1
				}
			}
		}
		out = append(out, id)
	}
	return out
}

// note records the resource id of the v2 scene with v1 id id, and returns
// how many ids it knows.
func (s *sceneIDs) note(id, rid string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byV1 == nil {
		s.byV1 = map[string]string{}
	}
	s.byV1[id] = rid
	return len(s.byV1)
}

// isV1 reports whether id is a v1 scene this client knows of.
func (s *sceneIDs) isV1(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v1[id]
}

// sceneV1ID is a scene's v1 id ("/scenes/AbC" -> "AbC"), or its v2 id.
func sceneV1ID(idV1, id string) string {
	if n, ok := strings.CutPrefix(idV1, "/scenes/"); ok && n != "" {
		return n
	}
	return id
}

// listV2Scenes reads every scene and refreshes sceneIDs.
func (c *v2Client) listV2Scenes(ctx context.Context) ([]v2Scene, error) {
	status, ans, err := c.call(ctx, "GetScenes", http.MethodGet, "/clip/v2/resource/scene", nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return nil, err
	}
	var list []v2Scene
	if err := json.Unmarshal(ans.Data, &list); err != nil {
		return nil, otherJSON(status, "a CLIP v2 scene list")
	}
	byV1 := map[string]string{}
	for _, sc := range list {
		byV1[sceneV1ID(sc.IDV1, sc.ID)] = sc.ID
	}
	c.scenes.mu.Lock()
	c.scenes.byV1 = byV1
	c.scenes.mu.Unlock()
	return list, nil
}

// v2SceneRID is the resource id of the v2 scene with v1 id id, listing the
// scenes once when the last listing did not have it; ok is false for a
// scene that is not a v2 scene (a v1 LightScene, or none).
func (c *v2Client) v2SceneRID(ctx context.Context, id string) (string, bool, error) {
	if c.scenes.isV1(id) {
		return "", false, nil
	}
	c.scenes.mu.Lock()
	rid, ok := c.scenes.byV1[id]
	c.scenes.mu.Unlock()
	if ok {
		return rid, true, nil
	}
	if _, err := c.listV2Scenes(ctx); err != nil {
		return "", false, err
	}
	c.scenes.mu.Lock()
	defer c.scenes.mu.Unlock()
	rid, ok = c.scenes.byV1[id]
	return rid, ok, nil
}

// scene is a v2 scene in Tether's types; withStates adds its actions.
func (c *v2Client) scene(sc v2Scene, withStates bool) Scene {
	out := Scene{ID: sceneV1ID(sc.IDV1, sc.ID), Name: sc.Metadata.Name, AppData: sc.Metadata.AppData, LightIDs: []string{}}
	if id, ok := c.store.groupByRID(sc.Group.RID); ok {
		out.GroupID = id
	}
	if withStates {
		out.States = map[string]model.StateBody{}
		out.Options = sc.options()
	}
	for _, a := range sc.Actions {
		id := c.store.lightV1ID(a.Target.RID)
		out.LightIDs = append(out.LightIDs, id)
		if withStates {
			out.States[id] = a.state()
		}
	}
	out.LightIDs = nonNil(out.LightIDs)
	return out
}

// options are the scene's palette, speed and auto_dynamic; a scene that
// reports no palette has an empty one.
func (sc v2Scene) options() SceneOptions {
	o := SceneOptions{Palette: &ScenePalette{}, Speed: sc.Speed, AutoDynamic: sc.AutoDynamic}
	if sc.Palette != nil {
		o.Palette = sc.Palette.model()
	}
	return o
}

// state is an action in Tether's units.
func (a v2SceneAction) state() model.StateBody {
	var st model.StateBody
	act := a.Action
	if act.On != nil {
		on := act.On.On
		st.On = &on
	}
	if act.Dimming != nil {
		bri := briOf(act.Dimming.Brightness)
		st.Bri = &bri
	}
	if act.Color != nil && act.Color.XY != nil {
		xy := [2]float64{model.RoundXY(act.Color.XY.X), model.RoundXY(act.Color.XY.Y)}
		st.XY = &xy
	}
	if act.ColorTemperature != nil && act.ColorTemperature.Mirek != nil {
		ct := *act.ColorTemperature.Mirek
		st.CT = &ct
	}
	if act.Dynamics != nil && act.Dynamics.Duration != nil {
		tt := *act.Dynamics.Duration / 100
		st.TransitionTime = &tt
	}
	if act.Effects != nil && act.Effects.Effect != nil {
		e := *act.Effects.Effect
		st.Effect = &e
	}
	if act.Gradient != nil {
		g := act.Gradient.model()
		st.Gradient = &g
	}
	return st
}

// actions is a scene's states as CLIP v2 actions, each light's command in
// v2's form (hue/sat as xy in the light's gamut).
func (c *v2Client) actions(ctx context.Context, states map[string]model.StateBody) ([]map[string]any, error) {
	out := []map[string]any{}
	for _, id := range sortedIDs(states) {
		rid, gamut, ok := c.store.lightByV1(id)
		if !ok {
			if _, err := c.readAll(ctx); err != nil {
				return nil, err
			}
			if rid, gamut, ok = c.store.lightByV1(id); !ok {
				return nil, &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("no light with id %s", id)}
			}
		}
		out = append(out, map[string]any{"target": v2Ref{RID: rid, RType: "light"}, "action": lightPut(states[id], gamut)})
	}
	return out, nil
}

// sceneMetadata is a scene's metadata as CLIP v2 takes it: appdata only
// when set (it takes 1-16 characters).
func sceneMetadata(spec SceneSpec) map[string]string {
	m := map[string]string{"name": spec.Name}
	if spec.AppData != "" {
		m["appdata"] = spec.AppData
	}
	return m
}

// writeScene sends a scene write and returns the rid it answered.
func (c *v2Client) writeScene(ctx context.Context, operation, method, path string, body any) (string, error) {
	status, ans, err := c.call(ctx, operation, method, path, body)
	if err != nil {
		return "", err
	}
	if err := statusError(status, ans); err != nil {
		return "", err
	}
	var refs []v2Ref
	if json.Unmarshal(ans.Data, &refs) != nil || len(refs) == 0 || refs[0].RID == "" {
		return "", otherJSON(status, "a CLIP v2 write answer")
	}
	return refs[0].RID, nil
}

// Scenes lists the v2 scenes, without their states.
func (c *v2Client) Scenes(ctx context.Context) ([]Scene, error) {
	list, err := c.listV2Scenes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Scene, 0, len(list))
	for _, sc := range list {
		out = append(out, c.scene(sc, false))
	}
	return out, nil
}

// Scene reads one scene with its states: a v2 scene, else (one stored
// before, through v1) the v1 scene while the bridge serves v1.
func (c *v2Client) Scene(ctx context.Context, id string) (Scene, error) {
	rid, ok, err := c.v2SceneRID(ctx, id)
	if err != nil {
		return Scene{}, err
	}
	if !ok {
		return c.v1Scene(ctx, id)
	}
	sc, err := c.readScene(ctx, rid)
	if err != nil {
		return Scene{}, err
	}
	return c.scene(sc, true), nil
}

// readScene reads the v2 scene rid and notes its v1 id, so that the scene
// is found by that id without a listing of every scene.
func (c *v2Client) readScene(ctx context.Context, rid string) (v2Scene, error) {
	status, ans, err := c.call(ctx, "GetScene", http.MethodGet, "/clip/v2/resource/scene/"+rid, nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return v2Scene{}, err
	}
	var list []v2Scene
	if json.Unmarshal(ans.Data, &list) != nil || len(list) != 1 {
		return v2Scene{}, otherJSON(status, "a CLIP v2 scene")
	}
	sc := list[0]
	if known := c.scenes.note(sceneV1ID(sc.IDV1, sc.ID), sc.ID); known > knownScenesMax {
		// The ids of scenes deleted since the last listing: a listing
		// keeps only the bridge's.
		_, _ = c.listV2Scenes(ctx)
	}
	return sc, nil
}

// knownScenesMax bounds the scene ids readScene keeps between listings:
// temporary scenes are stored and deleted in bursts, and each stored adds
// one. Past it a listing keeps only the scenes the bridge holds.
const knownScenesMax = 512

// v1Scene reads a v1 scene; on a bridge without v1 there is none.
func (c *v2Client) v1Scene(ctx context.Context, id string) (Scene, error) {
	sc, err := c.v1Rooms().Scene(ctx, id)
	if isV1Gone(err) {
		return Scene{}, &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("no scene %s", id)}
	}
	return sc, err
}

// CreateScene stores a scene of a room or zone as a v2 scene, and one of
// no room or zone (a temporary scene) as a v1 LightScene.
func (c *v2Client) CreateScene(ctx context.Context, spec SceneSpec) (string, error) {
	groupRID, rtype, _, ok := c.store.groupByV1(spec.GroupID)
	if spec.GroupID == "" || !ok {
		id, err := c.v1Rooms().CreateScene(ctx, spec)
		if err == nil {
			c.scenes.markV1(id)
		}
		return id, err
	}
	actions, err := c.actions(ctx, spec.States)
	if err != nil {
		return "", err
	}
	body := map[string]any{"metadata": sceneMetadata(spec), "group": v2Ref{RID: groupRID, RType: rtype}, "actions": actions}
	optionsPut(body, spec.Options)
	rid, err := c.writeScene(ctx, "CreateScene", http.MethodPost, "/clip/v2/resource/scene", body)
	if err != nil {
		return "", err
	}
	// Its v1 id is the bridge's to give (id_v1): read back the one scene,
	// not every scene of the bridge.
	sc, err := c.readScene(ctx, rid)
	if err != nil {
		return "", err
	}
	return sceneV1ID(sc.IDV1, sc.ID), nil
}

// UpdateScene makes a scene's actions and name spec's (its room or zone
// cannot change: CLIP v2's PUT has no group).
func (c *v2Client) UpdateScene(ctx context.Context, id string, spec SceneSpec) error {
	rid, ok, err := c.v2SceneRID(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return c.v1Rooms().UpdateScene(ctx, id, spec)
	}
	actions, err := c.actions(ctx, spec.States)
	if err != nil {
		return err
	}
	body := map[string]any{"metadata": sceneMetadata(spec), "actions": actions}
	optionsPut(body, spec.Options)
	_, err = c.writeScene(ctx, "UpdateScene", http.MethodPut, "/clip/v2/resource/scene/"+rid, body)
	return err
}

// DeleteScene deletes a scene; one already gone is success.
func (c *v2Client) DeleteScene(ctx context.Context, id string) error {
	rid, ok, err := c.v2SceneRID(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		err := c.v1Rooms().DeleteScene(ctx, id)
		if isV1Gone(err) {
			return nil // no v1 scene can be on a bridge without v1
		}
		return err
	}
	status, ans, err := c.call(ctx, "DeleteScene", http.MethodDelete, "/clip/v2/resource/scene/"+rid, nil)
	if err == nil && status != http.StatusNotFound {
		err = statusError(status, ans)
	}
	return err
}

// RecallScene shows a v2 scene on its room or zone (recall action active,
// duration in ms), and a v1 scene on groupID through v1.
func (c *v2Client) RecallScene(ctx context.Context, sceneID, groupID string, transition *int) error {
	rid, ok, err := c.v2SceneRID(ctx, sceneID)
	if err != nil {
		return err
	}
	if !ok {
		return c.v1Rooms().RecallScene(ctx, sceneID, groupID, transition)
	}
	recall := map[string]any{"action": "active"}
	if transition != nil {
		recall["duration"] = *transition * 100
	}
	_, err = c.writeScene(ctx, "RecallScene", http.MethodPut, "/clip/v2/resource/scene/"+rid, map[string]any{"recall": recall})
	return err
}

// LightScenes lists the v1 scenes, through v1: temporary scenes are v1
// LightScenes on a CLIP v2 bridge that serves v1 too.
func (c *v2Client) LightScenes(ctx context.Context) ([]Scene, error) {
	scenes, err := c.v1Rooms().Scenes(ctx)
	for _, sc := range scenes {
		if sc.GroupID == "" {
			c.scenes.markV1(sc.ID)
		}
	}
	return scenes, err
}

// isV1Gone reports whether err is a v1 request to a bridge without v1.
func isV1Gone(err error) bool { return errors.As(err, &V1GoneError{}) }

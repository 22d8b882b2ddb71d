package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/tether-dev/tether/providers/hue/model"
)

// The v1 implementation of RoomsClient: rooms and zones are groups of type
// Room and Zone (PUT /groups/<id> changes their lights), scenes are light
// scenes with lightstates (POST /scenes), recalled with a group action
// {"scene": id}. Plain HTTP like the state calls: huego's Scene sends every
// lightstate's "on" and cannot send hue, sat or transitiontime 0.

var _ RoomsClient = (*v1Client)(nil)

// v1Group is a group of GET /groups.
type v1Group struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Class  string   `json:"class"`
	Lights []string `json:"lights"`
}

// v1Scene is a scene of GET /scenes and GET /scenes/<id>.
type v1Scene struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Group   string   `json:"group"`
	Lights  []string `json:"lights"`
	AppData struct {
		Data string `json:"data"`
	} `json:"appdata"`
	LightStates map[string]model.StateBody `json:"lightstates"`
}

// v1AppData is a scene's appdata as the bridge takes it.
type v1AppData struct {
	Version int    `json:"version"`
	Data    string `json:"data"`
}

func (c *v1Client) ListGroups(ctx context.Context) (groups []Group, err error) {
	err = c.bounded(ctx, "GetGroups", func(ctx context.Context) error {
		var raw map[string]v1Group
		if err := c.get(ctx, "/groups", &raw); err != nil {
			return err
		}
		for id, g := range raw {
			groups = append(groups, Group{ID: id, Name: g.Name, Type: g.Type, Class: g.Class, LightIDs: g.Lights})
		}
		slices.SortFunc(groups, func(a, b Group) int { return compareIDs(a.ID, b.ID) })
		return nil
	})
	return groups, err
}

// LightGroups lists the v1 LightGroups.
func (c *v1Client) LightGroups(ctx context.Context) ([]Group, error) {
	return lightGroupsOf(c.ListGroups(ctx))
}

// LightScenes lists the v1 scenes (all of them: HueScenes too are v1
// scenes here).
func (c *v1Client) LightScenes(ctx context.Context) ([]Scene, error) { return c.Scenes(ctx) }

func (c *v1Client) CreateRoom(ctx context.Context, spec GroupSpec) (id string, err error) {
	err = c.bounded(ctx, "CreateGroup", func(ctx context.Context) error {
		body := map[string]any{"name": spec.Name, "type": spec.Type, "lights": nonNil(spec.LightIDs)}
		id, err = c.create(ctx, "/groups", body)
		return err
	})
	return id, err
}

func (c *v1Client) SetGroupLights(ctx context.Context, id string, lightIDs []string) error {
	if _, err := strconv.Atoi(id); err != nil {
		return fmt.Errorf("group id %q is not a number", id)
	}
	return c.bounded(ctx, "SetGroupAttributes", func(ctx context.Context) error {
		_, err := c.write(ctx, http.MethodPut, "/groups/"+id, map[string]any{"lights": nonNil(lightIDs)})
		return err
	})
}

func (c *v1Client) RenameGroup(ctx context.Context, id, name string) error {
	if _, err := strconv.Atoi(id); err != nil {
		return fmt.Errorf("group id %q is not a number", id)
	}
	return c.bounded(ctx, "SetGroupAttributes", func(ctx context.Context) error {
		_, err := c.write(ctx, http.MethodPut, "/groups/"+id, map[string]any{"name": name})
		return err
	})
}

func (c *v1Client) Scenes(ctx context.Context) (scenes []Scene, err error) {
	err = c.bounded(ctx, "GetScenes", func(ctx context.Context) error {
		var raw map[string]v1Scene
		if err := c.get(ctx, "/scenes", &raw); err != nil {
			return err
		}
		for id, s := range raw {
			scenes = append(scenes, s.scene(id))
		}
		slices.SortFunc(scenes, func(a, b Scene) int { return compareIDs(a.ID, b.ID) })
		return nil
	})
	return scenes, err
}

func (c *v1Client) Scene(ctx context.Context, id string) (scene Scene, err error) {
	err = c.bounded(ctx, "GetScene", func(ctx context.Context) error {
		var raw v1Scene
		if err := c.get(ctx, "/scenes/"+id, &raw); err != nil {
			return err
		}
		scene = raw.scene(id)
		scene.States = raw.LightStates
		if scene.States == nil {
			scene.States = map[string]model.StateBody{}
		}
		return nil
	})
	return scene, err
}

func (s v1Scene) scene(id string) Scene {
	group := ""
	if s.Type == "GroupScene" {
		group = s.Group
	}
	return Scene{ID: id, Name: s.Name, GroupID: group, LightIDs: s.Lights, AppData: s.AppData.Data}
}

// CreateScene stores a light scene of the spec's lights (a group scene
// would also hold the group's other lights, at their state of the moment,
// and recall them too).
func (c *v1Client) CreateScene(ctx context.Context, spec SceneSpec) (id string, err error) {
	err = c.bounded(ctx, "CreateScene", func(ctx context.Context) error {
		body := map[string]any{"name": spec.Name, "type": "LightScene", "recycle": false,
			"lights": sortedIDs(spec.States), "lightstates": spec.States}
		if spec.AppData != "" {
			body["appdata"] = v1AppData{Version: 1, Data: spec.AppData}
		}
		id, err = c.create(ctx, "/scenes", body)
		return err
	})
	return id, err
}

func (c *v1Client) UpdateScene(ctx context.Context, id string, spec SceneSpec) error {
	return c.bounded(ctx, "UpdateScene", func(ctx context.Context) error {
		_, err := c.write(ctx, http.MethodPut, "/scenes/"+id,
			map[string]any{"name": spec.Name, "lights": sortedIDs(spec.States), "lightstates": spec.States})
		return err
	})
}

func (c *v1Client) DeleteScene(ctx context.Context, id string) error {
	return c.bounded(ctx, "DeleteScene", func(ctx context.Context) error {
		if _, err := c.write(ctx, http.MethodDelete, "/scenes/"+id, nil); ErrorType(err) != TypeNotAvailable {
			return err
		}
		return nil
	})
}

func (c *v1Client) RecallScene(ctx context.Context, sceneID, groupID string, transition *int) error {
	if _, err := strconv.Atoi(groupID); err != nil {
		return fmt.Errorf("group id %q is not a number", groupID)
	}
	return c.bounded(ctx, "RecallScene", func(ctx context.Context) error {
		body := map[string]any{"scene": sceneID}
		if transition != nil {
			body["transitiontime"] = *transition
		}
		_, err := c.write(ctx, http.MethodPut, "/groups/"+groupID+"/action", body)
		return err
	})
}

// get reads a resource below /api/<user> into v; an error array is the
// bridge's error.
func (c *v1Client) get(ctx context.Context, path string, v any) error {
	status, body, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if status < 300 && json.Unmarshal(body, v) == nil {
		return nil
	}
	if _, err := decodeWrite(status, body); err != nil {
		return err
	}
	return otherJSON(status, "the Hue resource asked for")
}

// create POSTs body and returns the id of the success answer.
func (c *v1Client) create(ctx context.Context, path string, body any) (string, error) {
	items, err := c.write(ctx, http.MethodPost, path, body)
	if err != nil {
		return "", err
	}
	for _, it := range items {
		var ok struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(it, &ok) == nil && ok.ID != "" {
			return ok.ID, nil
		}
	}
	return "", otherJSON(http.StatusOK, "a created resource's id")
}

// write sends a POST, PUT or DELETE and returns the success entries; the
// first error entry is the request's error.
func (c *v1Client) write(ctx context.Context, method, path string, body any) ([]json.RawMessage, error) {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	status, answer, err := c.do(ctx, method, path, data)
	if err != nil {
		return nil, err
	}
	return decodeWrite(status, answer)
}

// decodeWrite reads a success/error answer array as a whole: the success
// values, or the first error.
func decodeWrite(status int, body []byte) ([]json.RawMessage, error) {
	var items []struct {
		Success json.RawMessage `json:"success"`
		Error   *struct {
			Type        int    `json:"type"`
			Address     string `json:"address"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, otherJSON(status, "a Hue write answer")
	}
	var out []json.RawMessage
	for _, it := range items {
		if e := it.Error; e != nil {
			return nil, &BridgeError{Type: e.Type, Address: e.Address, Description: e.Description}
		}
		out = append(out, it.Success)
	}
	if status >= 300 {
		return nil, &ProtocolError{Detail: fmt.Sprintf("HTTP %d without an error in the body", status)}
	}
	return out, nil
}

// sortedIDs are a scene's light ids in the bridge's order.
func sortedIDs(states map[string]model.StateBody) []string {
	ids := slices.Collect(maps.Keys(states))
	slices.SortFunc(ids, compareIDs)
	return ids
}

// nonNil makes an empty list marshal as [] (an empty room), not null.
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

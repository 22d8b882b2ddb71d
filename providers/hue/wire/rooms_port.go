package wire

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/tether-dev/tether/providers/hue/model"
)

// ErrNoRooms is the answer of a session whose client has no RoomsClient.
var ErrNoRooms = errors.New("rooms, zones and scenes are not managed over this bridge's API yet")

// RoomsClient is the part of the port for rooms, zones and scenes, in
// Tether's own types like Client. It is apart from Client so that a backend
// without it still serves HueLights: the session asks for it (roomsOf) and
// HueGroups and HueScenes on such a bridge say so in their conditions, and
// the sender does without temporary scenes.
//
// Ids are opaque strings: v1 numbers groups ("3") and names scenes with 15
// characters; CLIP v2 uses UUIDs and acts on a room or zone through its
// grouped_light, which its client resolves from the group's id.
type RoomsClient interface {
	// ListGroups reads the bridge's groups (rooms, zones and the others)
	// with their lights.
	ListGroups(ctx context.Context) ([]Group, error)
	// CreateRoom creates a room or zone (spec.Type) and returns its id.
	CreateRoom(ctx context.Context, spec GroupSpec) (string, error)
	// SetGroupLights makes lightIDs the group's lights.
	SetGroupLights(ctx context.Context, id string, lightIDs []string) error
	// RenameGroup gives the group the name name, and nothing else.
	RenameGroup(ctx context.Context, id, name string) error
	// Scenes lists the bridge's scenes, without their states.
	Scenes(ctx context.Context) ([]Scene, error)
	// Scene reads one scene with its states; a scene that is gone is a
	// BridgeError of type 3 (resource not available).
	Scene(ctx context.Context, id string) (Scene, error)
	// CreateScene stores a scene and returns its id.
	CreateScene(ctx context.Context, spec SceneSpec) (string, error)
	// UpdateScene makes the scene's lights and states spec's.
	UpdateScene(ctx context.Context, id string, spec SceneSpec) error
	// DeleteScene deletes a scene; one already gone is success.
	DeleteScene(ctx context.Context, id string) error
	// RecallScene shows a scene on the lights of the group that are in it
	// (group "0" on v1: every light of the scene): one group command.
	// transition, in 100 ms, replaces the scene's own when set.
	RecallScene(ctx context.Context, sceneID, groupID string, transition *int) error
}

// Group types of a bridge. Tether creates rooms and zones; temporary
// groups (the session's) are light groups.
const (
	GroupRoom  = "Room"
	GroupZone  = "Zone"
	GroupLight = "LightGroup"
)

// Group is a group as its bridge describes it.
type Group struct {
	ID   string
	Name string
	// Type is Room, Zone, LightGroup or another the bridge reports
	// (Luminaire, Entertainment).
	Type string
	// Class is a room's or zone's kind ("Living room"), "" when none.
	Class    string
	LightIDs []string
}

// HasLights reports whether the group's lights are ids, in any order.
func (g Group) HasLights(ids []string) bool {
	if len(g.LightIDs) != len(ids) {
		return false
	}
	x, y := slices.Clone(g.LightIDs), slices.Clone(ids)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// GroupSpec is a room or zone to create.
type GroupSpec struct {
	Name     string
	Type     string // GroupRoom or GroupZone
	LightIDs []string
}

// Scene is a scene as its bridge describes it.
type Scene struct {
	ID   string
	Name string
	// GroupID is the room or zone the scene belongs to, when it belongs to
	// one (v1 group scenes, every v2 scene).
	GroupID  string
	LightIDs []string
	// AppData is what the application that stored it put there (v1
	// appdata.data, up to 16 characters): Tether marks its scenes with it.
	AppData string
	// States are the stored states by light id; nil when listed.
	States map[string]model.StateBody
	// Options are a v2 scene's palette, speed and auto_dynamic (read with
	// its states); a v1 scene has none (scene_options.go).
	Options SceneOptions
}

// SceneSpec is a scene to store: a state for each of its lights.
type SceneSpec struct {
	Name string
	// GroupID is the room or zone the scene is for ("" for none; v1 stores
	// a light scene either way, recalled on a group).
	GroupID string
	AppData string
	States  map[string]model.StateBody
	// Options are the CLIP v2 options to store; the v1 API has none, and
	// a caller sets them only for a CLIP v2 bridge (scene_options.go).
	Options SceneOptions
}

// LightGroupLister lists a bridge's light groups: what temporary groups
// are made as (v1 LightGroups on both APIs; CLIP v2 has no view of them),
// so that those a crash left can be found among them.
type LightGroupLister interface {
	LightGroups(ctx context.Context) ([]Group, error)
}

// LightSceneLister lists a bridge's v1 scenes: what temporary scenes are
// stored as on both APIs while the bridge serves v1, so that those a crash
// left can be found.
type LightSceneLister interface {
	LightScenes(ctx context.Context) ([]Scene, error)
}

// lightGroupsOf keeps the light groups of a listing.
func lightGroupsOf(groups []Group, err error) ([]Group, error) {
	return slices.DeleteFunc(groups, func(g Group) bool { return g.Type != GroupLight }), err
}

// RoomsOf returns the rooms-and-scenes part of a client, if it has one.
func RoomsOf(c Client) (RoomsClient, bool) {
	rc, ok := c.(RoomsClient)
	return rc, ok
}

// compareIDs orders numeric ids by number, others as strings.
func compareIDs(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x - y
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

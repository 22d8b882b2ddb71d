package huesim

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amimof/huego"
)

// TestHuegoRoomsAndScenes drives rooms, zones and scenes with huego, whose
// requests and decoders were written against real bridges: it proves that
// the simulator takes huego's shapes (a room with a class, a scene whose
// lightstates are keyed by light id, a recall as a group action) and that
// huego reads its answers (scene ids, lightstates as map[int]State, error
// 306 as an API error).
func TestHuegoRoomsAndScenes(t *testing.T) {
	s, err := Start(Options{Lights: []string{"a", "b", "c"}, Models: map[string]string{"c": "LWB010"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	unlimitedGroups(s.Bridge) // huego's calls come back to back
	bridge := huego.New(s.Addr(), "u")

	res, err := bridge.CreateGroup(huego.Group{Name: "Kitchen", Type: "Room", Class: "Kitchen", Lights: []string{"1", "3"}})
	if err != nil || res.Success["id"] != "1" {
		t.Fatalf("CreateGroup room: %+v, %v", res, err)
	}
	if _, err := bridge.CreateGroup(huego.Group{Name: "Hall", Type: "Room", Lights: []string{"3"}}); !isAPIError(err, ErrLightInAnotherRoom) {
		t.Fatalf("a light of the kitchen in a second room: %v, want API error %d", err, ErrLightInAnotherRoom)
	}
	if _, err := bridge.CreateGroup(huego.Group{Name: "Downstairs", Type: "Zone", Lights: []string{"1", "2", "3"}}); err != nil {
		t.Fatalf("CreateGroup zone: %v", err)
	}
	groups, err := bridge.GetGroups()
	if err != nil || len(groups) != 2 {
		t.Fatalf("GetGroups: %+v, %v", groups, err)
	}
	for _, g := range groups {
		if (g.Name == "Kitchen") != (g.Type == "Room" && g.Class == "Kitchen") {
			t.Fatalf("group decoded as %+v", g)
		}
	}

	created, err := bridge.CreateScene(&huego.Scene{Name: "Evening", Lights: []string{"1", "3"},
		LightStates: map[int]huego.State{1: {On: true, Bri: 100, Ct: 300}, 3: {On: true, Bri: 40}}})
	id, _ := created.Success["id"].(string)
	if err != nil || id == "" {
		t.Fatalf("CreateScene: %+v, %v", created, err)
	}
	scene, err := bridge.GetScene(id)
	if err != nil || scene.Name != "Evening" || scene.LightStates[1].Ct != 300 || scene.LightStates[3].Bri != 40 {
		t.Fatalf("GetScene: %+v, %v", scene, err)
	}
	if _, err := bridge.RecallScene(id, 2); err != nil {
		t.Fatalf("RecallScene on the zone: %v", err)
	}
	for name, want := range map[string]string{"1": "on bri 100 ct 300", "3": "on bri 40"} {
		l, err := bridge.GetLight(mustAtoi(name))
		got := fmt.Sprintf("on bri %d", l.State.Bri)
		if l.State.ColorMode == "ct" {
			got += fmt.Sprintf(" ct %d", l.State.Ct)
		}
		if err != nil || !l.State.On || got != want {
			t.Fatalf("light %s after the recall: %+v %v, want %s", name, l.State, err, want)
		}
	}
	if l, _ := s.Light("2"); l.State.On {
		t.Fatal("light 2 is in the zone but not in the scene: the recall left it alone")
	}
	zone, err := bridge.GetGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := zone.Scene(id); err != nil { // huego's group recall sends on:true with the scene
		t.Fatalf("Group.Scene: %v", err)
	}
	if _, err := bridge.UpdateScene(id, &huego.Scene{Name: "Night"}); err != nil {
		t.Fatalf("UpdateScene: %v", err)
	}
	if err := bridge.DeleteScene(id); err != nil {
		t.Fatalf("DeleteScene: %v", err)
	}
	if _, err := bridge.GetScene(id); !isAPIError(err, ErrNotAvailable) {
		t.Fatalf("GetScene after delete: %v, want API error 3", err)
	}
	if scenes, err := bridge.GetScenes(); err != nil || len(scenes) != 0 {
		t.Fatalf("GetScenes: %+v, %v", scenes, err)
	}
}

func mustAtoi(s string) int {
	var n int
	_, _ = fmt.Sscan(s, &n)
	return n
}

// TestNodeHueAPIRoomsAndScenes drives the same with node-hue-api 4.0.11,
// through its own models (Room, Zone, LightScene with lightstates) and
// calls (createGroup, createScene, getScene, setGroupState with a scene,
// activateScene, deleteScene): node-hue-api validates what it sends and
// parses what it gets, so it proves the simulator speaks these resources
// as the bridges it was written against.
func TestNodeHueAPIRoomsAndScenes(t *testing.T) {
	modules, err := filepath.Abs("../../hack/npm/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "node-hue-api")); err != nil {
		t.Skip("node-hue-api is not installed: run `npm ci` in hack/npm (the Makefile's test target does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; it is needed to run node-hue-api")
	}
	s, err := Start(Options{Lights: []string{"lamp", "strip"}, Usernames: []string{"node-user"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	unlimitedGroups(s.Bridge) // node-hue-api paces group actions, not group creations
	host, port, _ := net.SplitHostPort(s.Addr())
	out, err := exec.Command(node, "testdata/nodehue_scenes.js", host, port, modules, "node-user").Output()
	if err != nil {
		t.Fatalf("node-hue-api script: %v\n%s", err, stderrOf(err))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Room struct {
			ID, Type, Class string
		}
		SecondRoom any
		Zone       struct{ ID, Type string }
		SceneID    string
		Stored     struct {
			Name, Type  string
			Lights      []string
			LightStates map[string]map[string]any `json:"lightstates"`
		}
		RecallOnZone bool
		Light1       struct {
			On        bool
			Bri, CT   int
			ColorMode string
		}
		Activated bool
		Light2    struct {
			On        bool
			Bri       int
			ColorMode string
		}
		Listed  []string
		Deleted bool
		Left    int
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("script output %q: %v", out, err)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"the room", got.Room.Type == "Room" && got.Room.Class == "Kitchen"},
		{"a second room with the kitchen's light is refused with error 306", got.SecondRoom == float64(ErrLightInAnotherRoom)},
		{"the zone takes the kitchen's light", got.Zone.Type == "Zone"},
		{"the stored scene", got.Stored.Name == "Evening" && got.Stored.Type == "LightScene" && len(got.Stored.Lights) == 2 &&
			got.Stored.LightStates["1"]["ct"] == float64(300) && got.Stored.LightStates["2"]["bri"] == float64(50)},
		{"the recall on the zone", got.RecallOnZone && got.Light1.On && got.Light1.Bri == 100 && got.Light1.CT == 300 && got.Light1.ColorMode == "ct"},
		{"activateScene (group 0)", got.Activated && got.Light2.On && got.Light2.Bri == 50 && got.Light2.ColorMode == "xy"},
		{"getAll", fmt.Sprint(got.Listed) == "[Evening]"},
		{"deleteScene", got.Deleted && got.Left == 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: node-hue-api saw %+v", c.what, got)
		}
	}
	if len(s.Scenes()) != 0 {
		t.Fatalf("scenes left: %v", s.Scenes())
	}
}

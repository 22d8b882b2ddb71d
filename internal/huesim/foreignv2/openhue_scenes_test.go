package foreignv2

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoStoresAndRecallsAScene: openhue-go v0.4.0's generated
// client stores a scene of a zone (ScenePost: group, an action per light,
// metadata with appdata), reads it back as SceneGet (the zone as its
// group, the v1 id, status inactive), recalls it with ScenePut's recall
// {action: active}, after which the zone's lights show the actions and
// the scene reads status static. This proves the scene shapes Tether
// writes and reads are those of the API description as openhue
// transcribes it; not what a real bridge does with palettes or dynamic
// scenes, which the simulator does not model.
func TestOpenhueGoStoresAndRecallsAScene(t *testing.T) {
	sim := startBridge(t)
	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	colour, ambiance := v1ID(t, sim, "LCT015"), v1ID(t, sim, "LTW001")
	zone := sim.AddZone("Reading", colour, ambiance)

	var post openhue.ScenePost // built from JSON: the generated types are what decodes it
	raw, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"name": "Read", "appdata": "tether-test"},
		"group":    map[string]any{"rid": sim.RoomIDV2(zone), "rtype": "zone"},
		"actions": []any{
			map[string]any{"target": map[string]any{"rid": sim.LightIDV2(colour), "rtype": "light"},
				"action": map[string]any{"on": map[string]any{"on": true}, "dimming": map[string]any{"brightness": 30}}},
			map[string]any{"target": map[string]any{"rid": sim.LightIDV2(ambiance), "rtype": "light"},
				"action": map[string]any{"on": map[string]any{"on": true}, "color_temperature": map[string]any{"mirek": 300}}},
		},
	})
	if err := json.Unmarshal(raw, &post); err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateSceneWithResponse(ctx, post)
	if err != nil || created.JSON200 == nil || created.JSON200.Data == nil || len(*created.JSON200.Data) != 1 {
		t.Fatalf("CreateScene: %v %s", err, created.Body)
	}
	rid := *(*created.JSON200.Data)[0].Rid

	read := func() openhue.SceneGet {
		t.Helper()
		res, err := c.GetSceneWithResponse(ctx, rid)
		if err != nil || res.JSON200 == nil || res.JSON200.Data == nil || len(*res.JSON200.Data) != 1 {
			t.Fatalf("GetScene: %v %s", err, res.Body)
		}
		return (*res.JSON200.Data)[0]
	}
	sc := read()
	if *sc.Group.Rid != sim.RoomIDV2(zone) || *sc.Metadata.Appdata != "tether-test" || sc.Actions == nil || len(*sc.Actions) != 2 ||
		*sc.Status.Active != "inactive" {
		t.Fatalf("the scene as openhue-go reads it: %s", mustJSON(sc))
	}
	var v1 string
	for id := range sim.Scenes() {
		v1 = id
	}
	if *sc.IdV1 != "/scenes/"+v1 || sim.Scenes()[v1].Group != zone {
		t.Fatalf("id_v1 %s, the v1 scene %+v", *sc.IdV1, sim.Scenes()[v1])
	}

	active := openhue.SceneRecallActionActive
	if res, err := c.UpdateSceneWithResponse(ctx, rid, openhue.ScenePut{Recall: &openhue.SceneRecall{Action: &active}}); err != nil ||
		res.StatusCode() != http.StatusOK {
		t.Fatalf("recall: %v %v", err, res)
	}
	lc, _ := sim.Light(colour)
	la, _ := sim.Light(ambiance)
	if !lc.State.On || lc.State.Bri != 77 || !la.State.On || la.State.CT != 300 {
		t.Errorf("after the recall: %+v %+v (brightness 30 %% is bri 77)", lc.State, la.State)
	}
	if sc := read(); *sc.Status.Active != "static" {
		t.Errorf("status after the recall: %s", *sc.Status.Active)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

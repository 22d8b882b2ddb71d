package wire

import (
	"context"
	"net/http"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2ClientDeletesRoomsZonesAndScenes: on a CLIP v2 bridge the zones
// and scenes Tether creates are deleted through the v1 API it serves over
// HTTPS, which confirms a deletion with a string ("/groups/4 deleted.");
// each delete succeeds at the first answer (a scene also when it is
// already gone). Against the simulator, which answers as the v1 documentation says.
func TestV2ClientDeletesRoomsZonesAndScenes(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"kitchen", "desk"}})
	c := v2For(t, sim, huetest.User, Trust{})
	rooms, ok := RoomsOf(c)
	if !ok {
		t.Fatal("the v2 client has no rooms")
	}
	ctx := context.Background()
	zone, err := rooms.CreateRoom(ctx, GroupSpec{Name: "Downstairs", Type: GroupZone, LightIDs: []string{"1", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	scene, err := rooms.CreateScene(ctx, SceneSpec{Name: "Evening", GroupID: zone,
		States: map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(120)}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name   string
		delete func() error
	}{
		{"the scene", func() error { return rooms.DeleteScene(ctx, scene) }},
		{"the scene, already gone", func() error { return rooms.DeleteScene(ctx, scene) }},
		{"the zone", func() error { return c.DeleteGroup(ctx, zone) }},
	} {
		if err := step.delete(); err != nil {
			t.Errorf("deleting %s: %v", step.name, err)
		}
	}
	groups, err := rooms.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if g.ID == zone {
			t.Errorf("zone %s is still on the bridge", zone)
		}
	}
	deletes := 0
	for _, cmd := range sim.Commands() {
		if cmd.Method == http.MethodDelete {
			deletes++
		}
	}
	if deletes != 3 {
		t.Errorf("%d DELETE requests reached the bridge, want 3 (one per delete, no retry)", deletes)
	}
}

package wire

import (
	"context"
	"math"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestRoomsAndScenes drives each backend's RoomsClient against the
// simulator: v1 over HTTP, and CLIP v2's (rooms, zones and their scenes
// as CLIP v2's room, zone and scene resources). Rooms and zones with the
// same ids on both, a room refusing a light of another room, a scene of a
// zone (a CLIP v2 scene on v2) stored, read back, changed, recalled on the
// zone and deleted.
func TestRoomsAndScenes(t *testing.T) {
	for _, api := range []string{APIV1, APIV2} {
		t.Run(api, func(t *testing.T) {
			sim, err := huesim.Start(huesim.Options{Lights: []string{"a", "b", "c"}, Usernames: []string{huetest.User}}, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sim.Close)
			sim.SetGroupRate(math.Inf(1), 1) // the group budget is not under test
			client := NewClient(sim.Addr(), huetest.User, 2*time.Second)
			if api == APIV2 {
				client = v2For(t, sim, huetest.User, Trust{})
			}
			c, ok := RoomsOf(client)
			if !ok {
				t.Fatalf("the %s client has no rooms", api)
			}
			roomsAndScenes(t, sim, c)
			if v2, ok := client.(*v2Client); ok {
				NewWithT(t).Expect(v2.slots).To(BeEmpty(), "every request slot was given back")
			}
		})
	}
}

func roomsAndScenes(t *testing.T, sim *huesim.Server, c RoomsClient) {
	ctx := context.Background()
	g := NewWithT(t)

	room, err := c.CreateRoom(ctx, GroupSpec{Name: "Kitchen", Type: GroupRoom, LightIDs: []string{"1", "2"}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = c.CreateRoom(ctx, GroupSpec{Name: "Hall", Type: GroupRoom, LightIDs: []string{"2"}})
	g.Expect(ErrorType(err)).To(Equal(huesim.ErrLightInAnotherRoom), "error %v", err)
	zone, err := c.CreateRoom(ctx, GroupSpec{Name: "Downstairs", Type: GroupZone})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.SetGroupLights(ctx, zone, []string{"2", "3"})).To(Succeed())
	// A rename changes the name alone: the lights and the class (CLIP
	// v2's archetype, the kind the Hue app shows) stay.
	class := sim.Groups()[zone].Class
	g.Expect(c.RenameGroup(ctx, zone, "Upstairs")).To(Succeed())
	g.Expect(sim.Groups()[zone]).To(And(HaveField("Name", "Upstairs"), HaveField("Lights", []string{"2", "3"}), HaveField("Class", class)))
	g.Expect(c.RenameGroup(ctx, zone, "Downstairs")).To(Succeed())
	groups, err := c.ListGroups(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	for i := range groups {
		if _, v2 := c.(*v2Client); v2 {
			g.Expect(groups[i].Class).To(BeEmpty(), "CLIP v2 has archetypes, which Tether does not read")
			groups[i].Class = "Other"
		}
	}
	g.Expect(groups).To(Equal([]Group{
		{ID: room, Name: "Kitchen", Type: GroupRoom, Class: "Other", LightIDs: []string{"1", "2"}},
		{ID: zone, Name: "Downstairs", Type: GroupZone, Class: "Other", LightIDs: []string{"2", "3"}},
	}))

	// A scene of the zone: on CLIP v2 a v2 scene of it, on v1 a
	// LightScene (v1 keeps no group for it).
	_, v2 := c.(*v2Client)
	sceneGroup := ""
	if v2 {
		sceneGroup = zone
	}
	states := map[string]model.StateBody{
		"2": {On: ptr.To(true), Bri: ptr.To(0 + 100), CT: ptr.To(300), TransitionTime: ptr.To(4)},
		"3": {On: ptr.To(true), Bri: ptr.To(50), XY: &[2]float64{0.3, 0.3}, TransitionTime: ptr.To(0)},
	}
	if !v2 { // v1 stores hue/sat as sent (CLIP v2 has only xy)
		states["3"] = model.StateBody{On: ptr.To(true), Bri: ptr.To(50), Hue: ptr.To(0), Sat: ptr.To(0), TransitionTime: ptr.To(0)}
	}
	id, err := c.CreateScene(ctx, SceneSpec{Name: "Evening", GroupID: zone, AppData: "tether-x", States: states})
	g.Expect(err).NotTo(HaveOccurred())
	scene, err := c.Scene(ctx, id)
	g.Expect(err).NotTo(HaveOccurred())
	var options SceneOptions // a v1 scene has none; a v2 one shows the bridge's defaults
	if v2 {
		options = SceneOptions{Palette: &ScenePalette{}, Speed: ptr.To(0.5), AutoDynamic: ptr.To(false)}
	}
	g.Expect(scene).To(Equal(Scene{ID: id, Name: "Evening", GroupID: sceneGroup, LightIDs: []string{"2", "3"}, AppData: "tether-x", States: states, Options: options}),
		"hue 0, sat 0 and transitiontime 0 are stored (huego cannot send them)")
	listed, err := c.Scenes(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(listed).To(Equal([]Scene{{ID: id, Name: "Evening", GroupID: sceneGroup, LightIDs: []string{"2", "3"}, AppData: "tether-x"}}))

	states["1"] = model.StateBody{On: ptr.To(true), Bri: ptr.To(7)}
	states["3"] = model.StateBody{On: ptr.To(true), Bri: ptr.To(9)}
	g.Expect(c.UpdateScene(ctx, id, SceneSpec{Name: "Night", GroupID: zone, States: states})).To(Succeed())
	g.Expect(c.RecallScene(ctx, id, zone, ptr.To(0))).To(Succeed())
	for lightID, bri := range map[string]int{"2": 100, "3": 9} {
		l, _ := sim.Light(lightID)
		g.Expect(l.State.On && l.State.Bri == bri).To(BeTrue(), "light %s: %+v", lightID, l.State)
	}
	l1, _ := sim.Light("1")
	g.Expect(l1.State.On).To(BeFalse(), "light 1 is in the scene, not in the zone")

	g.Expect(c.DeleteScene(ctx, id)).To(Succeed())
	g.Expect(c.DeleteScene(ctx, id)).To(Succeed(), "a scene already gone is deleted")
	_, err = c.Scene(ctx, id)
	g.Expect(ErrorType(err)).To(Equal(TypeNotAvailable))
	if !v2 { // a v2 scene's id is looked up first: gone is not found, and goes to v1
		g.Expect(ErrorType(c.RecallScene(ctx, id, "0", nil))).To(Equal(TypeInvalidValue))
	}
}

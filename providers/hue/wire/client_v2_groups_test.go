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

// TestV2RoomsWithoutV1: on a CLIP v2 bridge whose v1 API is gone, rooms
// and zones are created, changed, commanded through their grouped_light
// and deleted, and a zone's scene stored, recalled, changed, read and
// deleted, over CLIP v2 alone (the simulator records no v1 request),
// with the v1 group ids a v1 client would see; the event stream brings a
// zone the Hue app made as Read.Groups, so the session hears of it by
// push. On the code before, every one of these went to v1 and failed.
func TestV2RoomsWithoutV1(t *testing.T) {
	sim, err := huesim.Start(huesim.Options{Lights: []string{"a", "b", "c"}, Usernames: []string{huetest.User}, V1Off: true}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sim.SetGroupRate(math.Inf(1), 1) // the group budget is not under test
	client := v2For(t, sim, huetest.User, Trust{})
	rc, _ := RoomsOf(client)
	ctx := context.Background()
	g := NewWithT(t)

	room, err := rc.CreateRoom(ctx, GroupSpec{Name: "Kitchen", Type: GroupRoom, LightIDs: []string{"1", "2"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sim.Groups()).To(HaveKeyWithValue(room, HaveField("Lights", []string{"1", "2"})), "the room's id is its v1 group id")
	_, err = rc.CreateRoom(ctx, GroupSpec{Name: "Hall", Type: GroupRoom, LightIDs: []string{"2"}})
	g.Expect(ErrorType(err)).To(Equal(TypeLightInAnotherRoom), "error %v", err)
	zone, err := rc.CreateRoom(ctx, GroupSpec{Name: "Downstairs", Type: GroupZone})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rc.SetGroupLights(ctx, zone, []string{"2", "3"})).To(Succeed())
	groups, err := rc.ListGroups(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(groups).To(Equal([]Group{
		{ID: room, Name: "Kitchen", Type: GroupRoom, LightIDs: []string{"1", "2"}},
		{ID: zone, Name: "Downstairs", Type: GroupZone, LightIDs: []string{"2", "3"}},
	}))

	res, err := client.SetGroupState(ctx, zone, model.StateBody{On: ptr.To(true), Bri: ptr.To(128)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Refused).To(BeEmpty())
	for id, on := range map[string]bool{"1": false, "2": true, "3": true} {
		l, _ := sim.Light(id)
		g.Expect(l.State.On).To(Equal(on), "light %s after the zone's command", id)
	}
	g.Expect(sim.Commands()).To(ContainElement(HaveField("Path", "/clip/v2/resource/grouped_light/"+sim.GroupedLightIDV2(zone))))

	// A zone made in the Hue app arrives on the stream.
	reads := make(chan Read, 16)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	connected := make(chan struct{})
	go func() {
		_ = client.(PushClient).Watch(wctx, time.Minute, func() { close(connected) }, func(r Read) { reads <- r })
	}()
	<-connected
	g.Eventually(reads).Should(Receive(HaveField("Full", true)))
	app := sim.AddZone("Upstairs", "1")
	g.Eventually(func() []Group {
		select {
		case r := <-reads:
			return r.Groups
		default:
			return nil
		}
	}, 5*time.Second, 20*time.Millisecond).Should(ContainElement(Group{ID: app, Name: "Upstairs", Type: GroupZone, LightIDs: []string{"1"}}))

	// A scene of the zone: a v2 scene, recalled through its recall.
	states := map[string]model.StateBody{"2": {On: ptr.To(true), Bri: ptr.To(40)}, "3": {On: ptr.To(false)}}
	scene, err := rc.CreateScene(ctx, SceneSpec{Name: "Dusk", GroupID: zone, AppData: "tether-y", States: states})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sim.Scenes()).To(HaveKeyWithValue(scene, HaveField("Group", zone)), "its id is the v1 scene id, its group the zone")
	g.Expect(rc.RecallScene(ctx, scene, zone, nil)).To(Succeed())
	l2, _ := sim.Light("2")
	l3, _ := sim.Light("3")
	g.Expect(l2.State.On && l2.State.Bri == 40 && !l3.State.On).To(BeTrue(), "after the recall: %+v %+v", l2.State, l3.State)
	g.Expect(sim.Commands()).To(ContainElement(And(HaveField("Path", "/clip/v2/resource/scene/"+sim.SceneIDV2(scene)),
		HaveField("Body", MatchJSON(`{"recall":{"action":"active"}}`)))))
	// Its palette, speed and auto_dynamic are written with its actions and
	// read back in Tether's units.
	states["3"] = model.StateBody{On: ptr.To(true), Bri: ptr.To(254)}
	options := SceneOptions{Palette: &ScenePalette{Colors: []PaletteColor{{XY: [2]float64{0.6, 0.35}, Bri: 200}},
		ColorTemperatures: []PaletteColorTemperature{{CT: 400, Bri: 150}}, Bri: ptr.To(180)}, Speed: ptr.To(0.7), AutoDynamic: ptr.To(true)}
	g.Expect(rc.UpdateScene(ctx, scene, SceneSpec{Name: "Dusk", GroupID: zone, AppData: "tether-y", States: states, Options: options})).To(Succeed())
	read, err := rc.Scene(ctx, scene)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(read).To(Equal(Scene{ID: scene, Name: "Dusk", GroupID: zone, LightIDs: []string{"2", "3"}, AppData: "tether-y", States: states, Options: options}))
	g.Expect(options.Changes(read.Options)).To(BeEmpty())
	g.Expect(rc.DeleteScene(ctx, scene)).To(Succeed())
	g.Expect(rc.DeleteScene(ctx, scene)).To(Succeed(), "a scene already gone is deleted")
	g.Expect(sim.Scenes()).To(BeEmpty())

	g.Expect(client.DeleteGroup(ctx, room)).To(Succeed())
	g.Expect(sim.Groups()).NotTo(HaveKey(room))
	g.Expect(sim.V1Requests()).To(BeEmpty(), "nothing went to v1")
}

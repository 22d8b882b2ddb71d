package bridge

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestAStoredSceneIsReadOncePerInterval: however often HueScenes look at
// their scene, the session reads it from the bridge at most once per poll
// interval (the test's is an hour), and again after it wrote a scene.
func TestAStoredSceneIsReadOncePerInterval(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"desk", "shelf"}})
	s, _, _ := newTestSession(wire.NewClient(sim.Addr(), huetest.User, 2*time.Second), 10)
	ctx := context.Background()
	g := NewWithT(t)
	dim := wire.SceneSpec{Name: "evening", States: map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(50)}}}
	id, err := s.Rooms().CreateScene(ctx, dim)
	g.Expect(err).NotTo(HaveOccurred())

	sim.ResetGetCounts()
	for range 5 {
		sc, err := s.Rooms().Scene(ctx, id)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(*sc.States["1"].Bri).To(Equal(50))
		_, err = s.Rooms().Scenes(ctx)
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(sim.GetCounts()["/scenes/"+id]).To(Equal(1), "five looks at the scene, one read")
	g.Expect(sim.GetCounts()["/scenes"]).To(Equal(1), "five listings, one read")

	bright := wire.SceneSpec{Name: "evening", States: map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(200)}}}
	g.Expect(s.Rooms().UpdateScene(ctx, id, bright)).To(Succeed())
	sc, err := s.Rooms().Scene(ctx, id)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(*sc.States["1"].Bri).To(Equal(200), "the scene as written, read again after the write")
	g.Expect(sim.GetCounts()["/scenes/"+id]).To(Equal(2))
}

// TestRoomAndSceneWritesTakeTheBridgesBudget: storing a scene waits for a
// light slot, as a light command does (the bridge writes a lightstate per
// light), and creating a room for a group slot: with the budget spent,
// nothing is written.
func TestRoomAndSceneWritesTakeTheBridgesBudget(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"desk", "shelf"}})
	s, _, _ := newTestSession(wire.NewClient(sim.Addr(), huetest.User, 2*time.Second), 1.0/3600) // a light slot an hour
	g := NewWithT(t)
	s.sender.lights.Allow() // the slot there is went to a light command
	s.sender.groups.Allow() // and the group slot to a group command
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()

	_, err := s.Rooms().CreateScene(ctx, wire.SceneSpec{Name: "evening", States: map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(50)}}})
	g.Expect(err).To(HaveOccurred(), "a scene stored without a light slot")
	_, err = s.Rooms().CreateRoom(ctx, wire.GroupSpec{Name: "Study", Type: wire.GroupRoom, LightIDs: []string{"2"}})
	g.Expect(err).To(HaveOccurred(), "a room created without a group slot")
	g.Expect(sim.Commands()).To(BeEmpty(), "nothing written to the bridge")
}

package wire

import (
	"context"
	"math"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2SceneCreateReadsBackOneScene: storing a v2 scene reads back that
// scene alone to learn its v1 id, not every scene of the bridge (a Bridge
// Pro may hold hundreds, and temporary scenes are stored in bursts), and
// its recall then needs no listing either. On the code before, each store
// listed every scene.
func TestV2SceneCreateReadsBackOneScene(t *testing.T) {
	sim, _, rc, zone := zoneOnV2(t, "a", "b")
	ctx := context.Background()
	g := NewWithT(t)
	states := map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(40)}, "2": {On: ptr.To(false)}}
	for _, name := range []string{"Relax", "Read", "Energize"} { // the user's scenes
		_, err := rc.CreateScene(ctx, SceneSpec{Name: name, GroupID: zone, States: states})
		g.Expect(err).NotTo(HaveOccurred())
	}
	sim.ResetGetCounts()

	scene, err := rc.CreateScene(ctx, SceneSpec{Name: "Dusk", GroupID: zone, States: states})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rc.RecallScene(ctx, scene, zone, nil)).To(Succeed())
	g.Expect(sim.GetCounts()).To(Equal(map[string]int{"/clip/v2/resource/scene/" + sim.SceneIDV2(scene): 1}),
		"one read of the scene stored, no listing")
	l1, _ := sim.Light("1")
	g.Expect(l1.State.Bri).To(Equal(40), "the recall found the scene by the v1 id the read gave")
}

// TestV2SceneIDsAreBounded: each scene stored adds its id to what the
// client knows, and temporary scenes are stored and deleted in bursts; past
// knownScenesMax a listing keeps only the scenes the bridge holds, so the
// ids of scenes long deleted do not pile up in a long-running manager.
func TestV2SceneIDsAreBounded(t *testing.T) {
	_, client, rc, zone := zoneOnV2(t, "a")
	ctx := context.Background()
	g := NewWithT(t)
	states := map[string]model.StateBody{"1": {On: ptr.To(true), Bri: ptr.To(40)}}
	ids := &client.(*v2Client).scenes
	known := func() int {
		ids.mu.Lock()
		defer ids.mu.Unlock()
		return len(ids.byV1)
	}
	most := 0
	for range knownScenesMax + 2 {
		scene, err := rc.CreateScene(ctx, SceneSpec{Name: "tether-temporary-x", GroupID: zone, States: states})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rc.DeleteScene(ctx, scene)).To(Succeed())
		most = max(most, known())
	}
	g.Expect(most).To(Equal(knownScenesMax), "ids known at most")
	g.Expect(known()).To(BeNumerically("<=", 2), "after the listing, only what was stored since")
}

// zoneOnV2 is a simulated CLIP v2 bridge of the named bulbs with a zone
// of them all, and a client that has read its rooms and zones (as a
// session has before it stores a scene). The group budget is lifted: it
// is not under test here.
func zoneOnV2(t *testing.T, bulbs ...string) (*huesim.Server, Client, RoomsClient, string) {
	t.Helper()
	sim := huetest.StartSim(t, huesim.Options{Lights: bulbs})
	sim.SetGroupRate(math.Inf(1), 1)
	ids := make([]string, len(bulbs))
	for i := range bulbs {
		ids[i] = strconv.Itoa(i + 1)
	}
	zone := sim.AddZone("Downstairs", ids...)
	client := v2For(t, sim, huetest.User, Trust{})
	rc, _ := RoomsOf(client)
	if _, err := rc.ListGroups(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sim, client, rc, zone
}

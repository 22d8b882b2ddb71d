package bridge

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// newSimPollerWithoutV1 is newSimPoller on a CLIP v2 bridge whose firmware
// answers 404 on the v1 paths, with temporary scenes on.
func newSimPollerWithoutV1(t *testing.T, lights int, perSecond float64) *simPoller {
	t.Helper()
	sim := startSimBridge(t, lights, perSecond, true)
	c, err := wire.NewClientV2(sim.TLSAddr(), simUser, 2*time.Second, wire.Trust{CABundle: sim.CACertPEM()})
	if err != nil {
		t.Fatal(err)
	}
	s := pollerOf(t, sim, c, perSecond)
	s.p.sender.setTemporaryScenes(true)
	return s
}

// zoneCommands returns the temporary zones' and scenes' writes in the
// order the bridge took them: "zone", "recall", "zone deleted".
func (s *simPoller) zoneCommands() []string {
	var out []string
	for _, c := range s.sim.Commands() {
		switch {
		case c.Method == "POST" && c.Path == "/clip/v2/resource/zone":
			out = append(out, "zone")
		case c.Method == "PUT" && strings.HasPrefix(c.Path, "/clip/v2/resource/scene/"):
			out = append(out, "recall")
		case c.Method == "DELETE" && strings.HasPrefix(c.Path, "/clip/v2/resource/zone/"):
			out = append(out, "zone deleted")
		}
	}
	return out
}

func (s *simPoller) zonesLeft() int {
	n := 0
	for _, g := range s.sim.Groups() {
		if g.Type == huesim.TypeZone {
			n++
		}
	}
	return n
}

// TestTemporaryZonesWaitForTheBatches: on a bridge without v1, 120 lights
// that each want a state of their own go as three temporary scenes, each
// in a zone of its own lights. A zone's deletion takes a group slot, as
// its creation and its scene's recall do, so the zones are deleted only
// once the three scenes are recalled: the last lights are set three slots
// sooner. Every zone is deleted in the end, and the bridge refused
// nothing. On the code before, each zone was deleted before the next
// batch's zone was created.
func TestTemporaryZonesWaitForTheBatches(t *testing.T) {
	const n = 120
	s := newSimPollerWithoutV1(t, n, 10)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue(fmt.Sprintf("room-%d", i%3), "light-"+id, id, bri(i))
	}
	s.start()
	g := NewWithT(t)
	s.wokenAll(g, n, 30*time.Second)
	g.Eventually(s.zoneCommands, 15*time.Second, 20*time.Millisecond).Should(Equal([]string{
		"zone", "recall", "zone", "recall", "zone", "recall", "zone deleted", "zone deleted", "zone deleted"}))
	g.Expect(s.zonesLeft()).To(BeZero(), "temporary zone left on the bridge")
	g.Expect(s.sim.Scenes()).To(BeEmpty(), "temporary scene left on the bridge")
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.Bri).To(Equal(i), "bulb %d", i)
	}
	g.Expect(s.sim.TooManyRequests()).To(BeZero())
}

// TestRetiredZonesAreBounded: 250 lights go as five temporary scenes; at
// most zonesRetiredMax zones wait for their deletion besides the one in
// use, so the oldest is deleted before the fifth zone is made.
func TestRetiredZonesAreBounded(t *testing.T) {
	const n = 5 * tempSceneMax
	s := newSimPollerWithoutV1(t, n, 10)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("room", "light-"+id, id, bri(1+i%250))
	}
	s.start()
	g := NewWithT(t)
	s.wokenAll(g, n, 60*time.Second)
	g.Eventually(s.zonesLeft, 15*time.Second, 20*time.Millisecond).Should(BeZero())
	most, alive := 0, 0
	for _, c := range s.zoneCommands() {
		switch c {
		case "zone":
			alive++
		case "zone deleted":
			alive--
		}
		most = max(most, alive)
	}
	g.Expect(most).To(Equal(zonesRetiredMax+1), "zones on the bridge at once: %v", s.zoneCommands())
	g.Expect(s.sim.TooManyRequests()).To(BeZero())
}

// TestRetiredZonesAreDeletedWhenTheSessionStops: a session that stops
// with zones retired to its group loop, and a request of its own on the
// way to the bridge, still deletes them: the request it gave up on says
// nothing of the bridge, and nothing else would delete them if its
// HueBridge is gone. Before, the cancelled request marked the bridge as
// not answering and the zones died with the session as leftovers.
func TestRetiredZonesAreDeletedWhenTheSessionStops(t *testing.T) {
	const n = 120
	s := newSimPollerWithoutV1(t, n, 10)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("room", "light-"+id, id, bri(i))
	}
	s.start()
	g := NewWithT(t)
	scenesDeleted := func() int {
		n := 0
		for _, c := range s.sim.Commands() {
			if c.Method == "DELETE" && strings.HasPrefix(c.Path, "/clip/v2/resource/scene/") {
				n++
			}
		}
		return n
	}
	// Two scenes recalled and deleted (their deletions go on whatever the
	// session does); the next request is the third zone's, the session's.
	g.Eventually(scenesDeleted, 30*time.Second, 5*time.Millisecond).Should(Equal(2))
	// It waits at the bridge (the delay it arrived with); the session
	// stops meanwhile, and the bridge answers what follows.
	s.sim.SetDelay(time.Minute)
	sent := s.sim.CredentialedRequests()
	g.Eventually(s.sim.CredentialedRequests, 10*time.Second, 5*time.Millisecond).Should(BeNumerically(">", sent))
	s.sim.SetDelay(0)
	s.stop()
	g.Expect(s.zonesLeft()).To(BeNumerically(">=", 2), "zones retired when the session stopped")
	g.Eventually(s.zonesLeft, 15*time.Second, 20*time.Millisecond).Should(BeZero(), "temporary zone left by a stopped session")
}

// TestGatheringWaitsForExpectedLightsWithoutV1: on a bridge without v1, 25
// HueLights are expected (their specs changed together) but hand their
// commands over one every 150 ms, slower than the bridge takes light
// commands (a busy API server's pace). The line waits for them as it does
// on a v1 bridge, and they go as one temporary scene in one zone: 25 light
// slots are more than the zone's two group slots. Before, the gathering
// began only once the line was already that long, so at this pace nearly
// every HueLight went as a light command of its own.
func TestGatheringWaitsForExpectedLightsWithoutV1(t *testing.T) {
	const n = 25
	s := newSimPollerWithoutV1(t, n, 10)
	s.start()
	g := NewWithT(t)
	s.expectThenArrive(n, 150*time.Millisecond)
	s.wokenAll(g, n, 15*time.Second)
	g.Expect(s.v2LightCommands()).To(BeZero(), "no light command while the expected lights arrived")
	g.Eventually(s.zoneCommands, 10*time.Second, 20*time.Millisecond).Should(Equal([]string{"zone", "recall", "zone deleted"}))
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.Bri).To(Equal(10+i), "bulb %d", i)
	}
}

// v2LightCommands counts the CLIP v2 light commands received.
func (s *simPoller) v2LightCommands() int {
	n := 0
	for _, c := range s.sim.Commands() {
		if c.Method == "PUT" && strings.HasPrefix(c.Path, "/clip/v2/resource/light/") {
			n++
		}
	}
	return n
}

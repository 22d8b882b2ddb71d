package bridge

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/model"
)

// sceneCommands returns "METHOD path" of the scene writes received, with
// the scene id as <id>.
func (s *simPoller) sceneCommands() []string {
	var out []string
	for _, c := range s.sim.Commands() {
		if strings.HasPrefix(c.Path, "/scenes") {
			out = append(out, c.Method+" /scenes"+strings.Repeat("/<id>", strings.Count(c.Path, "/")-1))
		}
	}
	return out
}

// TestTemporarySceneForDistinctStates: 20 lights, each wanting a state of
// its own, and a bulb that is not Tether's: one temporary scene is stored,
// recalled on group 0 and deleted; light by light would take 4 s at 5/s.
func TestTemporarySceneForDistinctStates(t *testing.T) {
	const n = 20
	s := newSimPoller(t, n+1, 5)
	s.p.sender.setTemporaryScenes(true)
	before, _ := s.sim.Light(strconv.Itoa(n + 1))
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue(fmt.Sprintf("room-%d", i%3), "light-"+id, id, bri(10+i))
	}
	s.start()
	g := NewWithT(t)
	s.wokenAll(g, n, 10*time.Second)
	g.Eventually(s.sceneCommands, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{"POST /scenes", "DELETE /scenes/<id>"}))
	g.Expect(s.groupCommands()).To(Equal([]string{"PUT /groups/0/action"}))
	g.Expect(len(s.lightCommands())).To(BeNumerically("<", minSceneSize), "the scene set the lights, not light commands")
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.On && l.State.Bri == 10+i).To(BeTrue(), "bulb %d: %+v", i, l.State)
		v, _ := s.p.cache.view(strconv.Itoa(i))
		g.Expect(*v.State.Bri).To(Equal(10+i), "the cache of bulb %d knows what the recall did", i)
	}
	after, _ := s.sim.Light(strconv.Itoa(n + 1))
	g.Expect(after.State).To(Equal(before.State), "the bulb outside the scene was changed")
	g.Expect(s.sim.Scenes()).To(BeEmpty(), "temporary scene left on the bridge")
	g.Expect(s.sim.Overloads()).To(BeZero())
}

// TestSceneBufferFullFallsBackToLightCommands: the bridge's 200 scenes are
// used up, so it refuses the temporary scene (error 402); every light is
// still set, light by light, and the user's scenes are untouched.
func TestSceneBufferFullFallsBackToLightCommands(t *testing.T) {
	const n = 8
	s := newSimPoller(t, n, 10)
	s.p.sender.setTemporaryScenes(true)
	for i := range huesim.MaxScenes {
		s.sim.AddScene(fmt.Sprintf("user scene %d", i), "1")
	}
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("a", "light-"+id, id, bri(10+i))
	}
	s.start()
	g := NewWithT(t)
	g.Eventually(s.lightCommands, 10*time.Second, 20*time.Millisecond).Should(HaveLen(n))
	g.Expect(s.sceneCommands()).To(Equal([]string{"POST /scenes"}), "one refused store, then light commands only")
	for _, c := range s.sim.Commands() {
		if c.Path == "/scenes" {
			g.Expect(c.Errors).To(Equal([]int{huesim.ErrSceneBufferFull}))
		}
	}
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.Bri).To(Equal(10 + i))
	}
	g.Expect(s.sim.Scenes()).To(HaveLen(huesim.MaxScenes))
	g.Expect(s.groupCommands()).To(BeEmpty())
}

// TestStaleTemporaryScenesAreRemovedAtStart: a crash left a temporary
// scene; the sender deletes it when it starts, and leaves the user's.
func TestStaleTemporaryScenesAreRemovedAtStart(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	s.sim.AddScene(tempScenePrefix+"crashed", "1", "2")
	user := s.sim.AddScene("Evening", "1")
	s.start()
	g := NewWithT(t)
	g.Eventually(func() []string { return sceneIDs(s.sim.Scenes()) }, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{user}))
	g.Expect(s.sceneCommands()).To(Equal([]string{"DELETE /scenes/<id>"}))
}

func sceneIDs(m map[string]huesim.Scene) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestGatheringWaitsForExpectedLights: ten HueLights are expected (their
// specs changed together) but hand their commands over one every 150 ms,
// slower than the bridge takes light commands: the line waits for them and
// they go as one scene. A HueLight nobody expected, alone, goes at once.
func TestGatheringWaitsForExpectedLights(t *testing.T) {
	const n = 10
	s := newSimPoller(t, n+1, 10)
	s.p.sender.setTemporaryScenes(true)
	s.start()
	g := NewWithT(t)
	s.expectThenArrive(n, 150*time.Millisecond)
	s.wokenAll(g, n, 10*time.Second)
	g.Expect(s.lightCommands()).To(BeEmpty(), "no light command while the expected lights arrived")
	g.Expect(s.groupCommands()).To(Equal([]string{"PUT /groups/0/action"}))

	// The scene's deletion takes a light slot: wait for the next one.
	g.Eventually(s.sceneCommands, 5*time.Second, 20*time.Millisecond).Should(HaveLen(2))
	g.Eventually(s.p.sender.lights.Tokens, time.Second, 10*time.Millisecond).Should(BeNumerically(">=", 1))
	s.sim.ResetCommands()
	start := time.Now()
	err := s.send("a", "alone", strconv.Itoa(n+1), model.FullBody(bri(3)), model.FullBody(bri(3)))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s.lightCommands()).To(Equal([]string{strconv.Itoa(n + 1)}), "sent by the reconcile that asked")
	g.Expect(time.Since(start)).To(BeNumerically("<", adapterWait), "nothing held a change nobody else was expected with")
}

// expectThenArrive has n HueLights of namespace a (light-1 to light-n, on
// bulbs 1 to n) expected together, as the informer tells the session of a
// spec change, then hand their commands over, each a state of its own, one
// every gap: reconciles slower than the bridge takes light commands.
func (s *simPoller) expectThenArrive(n int, gap time.Duration) {
	keys := make([]types.NamespacedName, n)
	for i := range keys {
		keys[i] = types.NamespacedName{Namespace: "a", Name: "light-" + strconv.Itoa(i+1)}
	}
	s.p.sender.drifted(keys)
	for i := 1; i <= n; i++ {
		time.Sleep(gap) // a slow reconcile, the condition under test
		s.queue("a", "light-"+strconv.Itoa(i), strconv.Itoa(i), bri(10+i))
	}
}

// TestUnexpectedCommandsJoinTheBurst: HueLights whose reconciles ran
// before the informer's handler could expect them hand their commands over
// unexpected, 60 ms apart (a busy API server's pace). The first goes at
// once, alone; the next makes a burst, which lingers for lingerPerGap
// times its gap, so the other five go as one temporary scene instead of
// one light command each.
func TestUnexpectedCommandsJoinTheBurst(t *testing.T) {
	const n = 6
	s := newSimPoller(t, n, 10)
	s.p.sender.setTemporaryScenes(true)
	s.start()
	g := NewWithT(t)
	for i := 1; i <= n; i++ {
		if i > 1 {
			time.Sleep(60 * time.Millisecond) // the pace commands arrive at, the condition under test
		}
		s.queue("a", "light-"+strconv.Itoa(i), strconv.Itoa(i), bri(10+i))
	}
	s.wokenAll(g, n, 10*time.Second)
	g.Expect(s.lightCommands()).To(Equal([]string{"1"}), "only the first, alone, as a light command")
	g.Expect(s.groupCommands()).To(Equal([]string{"PUT /groups/0/action"}), "the other five as one scene")
}

// TestAnotherNamespacesChangeIsNotHeldByABurst (issue 39 item 12): a
// tenant's burst in namespace a holds the line while its HueLights keep
// arriving (two of three expected are still to come). A HueLight of
// namespace b changes alone meanwhile: it goes at its turn as a light
// command while a's burst is still held, not after a's gathering ends. A
// tenant editing continuously keeps gatherings going back to back, up to
// gatherMax each, so holding b with it would delay b by as much.
func TestAnotherNamespacesChangeIsNotHeldByABurst(t *testing.T) {
	s := newSimPoller(t, 4, 10)
	s.p.sender.setTemporaryScenes(true)
	s.start()
	g := NewWithT(t)
	var burst []types.NamespacedName
	for i := 1; i <= 3; i++ {
		burst = append(burst, types.NamespacedName{Namespace: "a", Name: "light-" + strconv.Itoa(i)})
	}
	neighbour := types.NamespacedName{Namespace: "b", Name: "light-4"}
	s.p.sender.drifted(append(burst, neighbour))
	s.queue("a", "light-1", "1", bri(11))
	g.Expect(s.gathering()).To(BeTrue(), "a's burst holds the line while its HueLights arrive")
	s.queue("b", "light-4", "4", bri(44))
	g.Eventually(s.lightCommands, gatherIdle, 10*time.Millisecond).Should(Equal([]string{"4"}),
		"b's change went alone, and a's stayed in line")
	g.Expect(s.gathering()).To(BeTrue(), "b's command went while a's gathering still held its line")
	s.p.sender.mu.Lock()
	_, held := s.p.sender.line.get(burst[0])
	s.p.sender.mu.Unlock()
	g.Expect(held).To(BeTrue(), "a's command is still held for its burst")
}

// TestGatheringGivesUpOnALostExpectation: one of two expected HueLights
// never comes (its reconcile failed before Observe): after gatherIdle the
// other goes anyway, as a light command.
func TestGatheringGivesUpOnALostExpectation(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	s.p.sender.setTemporaryScenes(true)
	s.start()
	g := NewWithT(t)
	lost := types.NamespacedName{Namespace: "a", Name: "lost"}
	s.p.sender.drifted([]types.NamespacedName{lost, {Namespace: "a", Name: "light-1"}})
	queued := time.Now()
	s.queue("a", "light-1", "1", bri(42))
	g.Eventually(s.lightCommands, 2*gatherIdle+time.Second, 20*time.Millisecond).Should(Equal([]string{"1"}))
	g.Expect(time.Since(queued)).To(BeNumerically(">=", gatherIdle*9/10), "it waited for the expected HueLight first")
	g.Expect(s.sceneCommands()).To(BeEmpty(), "one light is no scene")
}

// gathering reports whether the sender holds its line now.
func (s *simPoller) gathering() bool {
	s.p.sender.mu.Lock()
	defer s.p.sender.mu.Unlock()
	return s.p.sender.gatheringLocked(time.Now())
}

// TestReadsDoNotHoldTheLineForQueuedLights: eight HueLights' commands are
// in line and every read (faster than gatherIdle, as a HueBridge's 1 s
// poll is) still sees their bulbs drift, because those commands have not
// gone out. Such a read expects nothing of them, and wakes none: they
// already handed their commands over. Expecting them held the line for as long as reads
// came (ten HueLights created at once sat in line for 5 to 20 s).
func TestReadsDoNotHoldTheLineForQueuedLights(t *testing.T) {
	const n = 8
	s := newSimPoller(t, n, 10)
	s.p.sender.setTemporaryScenes(true)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("a", "light-"+id, id, bri(10+i))
	}
	g := NewWithT(t)
	// The commands joined one burst; its linger ends before the read.
	g.Eventually(s.gathering, time.Second, 10*time.Millisecond).Should(BeFalse(), "the queued commands' burst lingers, then lets go")
	g.Expect(s.p.Poll(s.ctx)).To(Succeed())
	g.Expect(s.woken()).To(BeEmpty(), "the read woke HueLights whose commands are in line (each is woken when its command goes)")
	g.Expect(s.gathering()).To(BeFalse(), "a read of queued lights started a gathering")

	s.start()
	go func() { // reads keep coming, as the session's poll loop makes them
		for s.ctx.Err() == nil {
			_ = s.p.Poll(s.ctx)
			time.Sleep(gatherIdle / 4) // the pace of reads, the condition under test
		}
	}()
	g.Eventually(func() bool {
		for i := 1; i <= n; i++ {
			if l, _ := s.sim.Light(strconv.Itoa(i)); l.State.Bri != 10+i {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond).Should(BeTrue())
	g.Expect(s.groupCommands()).To(Equal([]string{"PUT /groups/0/action"}), "one temporary scene recalled")
	g.Expect(s.lightCommands()).To(BeEmpty())
}

// TestGatheringHoldsNoOrderLongerThanGatherMax: gatherings may follow one
// another (bulbs keep drifting whose HueLights never hand a command over),
// but an order queued gatherMax ago is held by none of them.
func TestGatheringHoldsNoOrderLongerThanGatherMax(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	s.p.sender.setTemporaryScenes(true)
	o := s.queue("a", "light-1", "1", bri(42))
	never := []types.NamespacedName{{Namespace: "a", Name: "never-1"}, {Namespace: "a", Name: "never-2"}}
	s.p.sender.drifted(never)
	g := NewWithT(t)
	g.Expect(s.gathering()).To(BeTrue(), "a fresh expectation holds a fresh order")

	s.p.sender.mu.Lock()
	o.queuedAt = time.Now().Add(-gatherMax) // the order has waited through earlier gatherings
	s.p.sender.mu.Unlock()
	s.p.sender.drifted(never)
	g.Expect(s.gathering()).To(BeFalse(), "a new gathering held an order queued gatherMax ago")
}

// TestASettledHueLightIsGatheredAgainAtItsNextChange: a HueLight whose
// bulb once matched (its pass dropped the stale command, at generation 1)
// is expected again when its spec changes (generation 2), so a burst of
// such changes is gathered into a scene. drop used to mark every
// generation arrived, so after the first time each HueLight was up to date
// its changes were never gathered again: bench figure 10's 500 changed
// HueLights went as a few light commands and two scenes per bridge, the
// second a group slot (1 s) later.
func TestASettledHueLightIsGatheredAgainAtItsNextChange(t *testing.T) {
	s := newSimPoller(t, 3, 10)
	s.p.sender.setTemporaryScenes(true)
	keys := []types.NamespacedName{{Namespace: "a", Name: "one"}, {Namespace: "a", Name: "two"}}
	expected := func() int {
		s.p.sender.mu.Lock()
		defer s.p.sender.mu.Unlock()
		return len(s.p.sender.gather.expected)
	}
	for _, k := range keys {
		s.p.sender.drop(k, 1) // up to date at generation 1
	}
	for _, k := range keys {
		s.p.sender.expectGeneration(k, 2) // the informer sees the spec change
	}
	if n := expected(); n != len(keys) {
		t.Fatalf("%d HueLights expected after their spec changed, want %d", n, len(keys))
	}
	s.p.sender.drop(keys[0], 2) // its pass found nothing to send
	if n := expected(); n != 1 {
		t.Fatalf("%d HueLights expected after one needed nothing, want 1", n)
	}
	s.p.sender.drop(keys[1], 3) // its reconcile of generation 3 came first
	s.p.sender.expectGeneration(keys[1], 3)
	if n := expected(); n != 0 {
		t.Fatalf("%d HueLights expected after a generation already handled, want 0", n)
	}
}

// setTemporaryScenes turns temporary scenes (and gathering) on or off, as
// a HueBridge's spec.temporaryScenes does when its session is made.
func (s *sender) setTemporaryScenes(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scenes.enabled = on
}

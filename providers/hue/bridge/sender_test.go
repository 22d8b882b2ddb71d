package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// These tests drive the sender against the Hue simulator over HTTP, with
// the v1 client, as in production.

const simUser = "tether-sender-test"

// simPoller is a session of a simulated bridge whose sender is not started
// yet, so a test can fill its queues first.
type simPoller struct {
	sim    *huesim.Server
	p      *Session
	events chan Wake
	ctx    context.Context
	stop   context.CancelFunc // ends the session
}

func newSimPoller(t *testing.T, lights int, perSecond float64) *simPoller {
	t.Helper()
	sim := startSimBridge(t, lights, perSecond, false)
	return pollerOf(t, sim, wire.NewClient(sim.Addr(), simUser, 2*time.Second), perSecond)
}

// startSimBridge starts a simulated bridge of lights bulbs (v1Off: a CLIP
// v2 bridge whose firmware answers 404 on the v1 paths). It allows the
// sender's rate, with a burst of 2 for network jitter only: commands sent
// faster would be refused with 503.
func startSimBridge(t *testing.T, lights int, perSecond float64, v1Off bool) *huesim.Server {
	t.Helper()
	names := make([]string, lights)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%d", i+1)
	}
	sim, err := huesim.Start(huesim.Options{Lights: names, Usernames: []string{simUser}, CommandsPerSecond: perSecond, Burst: 2, V1Off: v1Off}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// pollerOf is a session of sim through c, read once, its command log
// emptied.
func pollerOf(t *testing.T, sim *huesim.Server, c wire.Client, perSecond float64) *simPoller {
	t.Helper()
	p, events, _ := newTestSession(c, perSecond)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := p.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	sim.ResetCommands()
	return &simPoller{sim: sim, p: p, events: events, ctx: ctx, stop: cancel}
}

func (s *simPoller) start() { go s.p.sender.run(s.ctx) }

// queue hands a command over for a HueLight that does not wait for it.
func (s *simPoller) queue(ns, name, lightID string, want model.Desired) *order {
	key := types.NamespacedName{Namespace: ns, Name: name}
	s.p.Settle(key, Settling{Want: &Want{LightID: lightID, Desired: want, Reachable: true}})
	full := model.FullBody(want)
	o := s.p.sender.enqueue(Change{Key: key, LightID: lightID, Body: full, Full: full})
	_, _ = s.p.sender.await(s.ctx, &o.handover, 0)
	return o
}

// lightCommands returns the light ids of the light commands received, in
// order.
func (s *simPoller) lightCommands() []string {
	var ids []string
	for _, c := range s.sim.Commands() {
		if strings.HasPrefix(c.Path, "/lights/") {
			ids = append(ids, strings.Split(c.Path, "/")[2])
		}
	}
	return ids
}

// groupCommands returns "METHOD path" of the group commands received.
func (s *simPoller) groupCommands() []string {
	var out []string
	for _, c := range s.sim.Commands() {
		if strings.HasPrefix(c.Path, "/groups") {
			out = append(out, c.Method+" "+c.Path)
		}
	}
	return out
}

// adapterWait is how long the HueLight adapter waits for a command alone
// in line (its sendWait).
const adapterWait = 200 * time.Millisecond

// send sends for a HueLight that waits for its command, as the HueLight
// adapter's Update does: the error as the adapter gets it (and classifies
// it, providers/hue's Classify).
func (s *simPoller) send(ns, name, lightID string, body, full model.StateBody) error {
	_, _, err := s.p.Send(s.ctx, Change{Key: types.NamespacedName{Namespace: ns, Name: name}, LightID: lightID, Body: body, Full: full}, adapterWait)
	return err
}

// woken returns the HueLights woken so far, as namespace/name.
func (s *simPoller) woken() []string { return drain(s.events) }

// wokenAll waits until n HueLights were woken, and says which: a wake-up
// comes after the bridge's answer, so after the simulator logged the
// command.
func (s *simPoller) wokenAll(g Gomega, n int, timeout time.Duration) []string {
	var woken []string
	g.Eventually(func() []string { woken = append(woken, s.woken()...); return woken }, timeout, 20*time.Millisecond).Should(HaveLen(n))
	return woken
}

func bri(v int) model.Desired { return model.Desired{On: true, Bri: ptr.To(v)} }

// TestSenderTakesNamespacesInTurn: a room with 6 lights queued first and a
// room with 2 share the budget in turn, instead of the second waiting for
// all of the first.
func TestSenderTakesNamespacesInTurn(t *testing.T) {
	s := newSimPoller(t, 8, 10)
	room := map[string]string{}
	for i := 1; i <= 8; i++ {
		ns := "a"
		if i > 6 {
			ns = "b"
		}
		id := strconv.Itoa(i)
		room[id] = ns
		s.queue(ns, "light-"+id, id, bri(10+i)) // distinct states: no grouping
	}
	s.start()
	g := NewWithT(t)
	g.Eventually(s.lightCommands, 10*time.Second, 20*time.Millisecond).Should(HaveLen(8))
	var order []string
	for _, id := range s.lightCommands() {
		order = append(order, room[id])
	}
	g.Expect(strings.Join(order, "")).To(Equal("ababaaaa"))
	g.Expect(s.sim.Overloads()).To(BeZero())
}

// TestSenderUsesEverySlot: queued commands all go out without their
// HueLights asking again (the fair limiter lost the slots of HueLights that
// came back late), at the bridge's rate (no 503), each woken once.
func TestSenderUsesEverySlot(t *testing.T) {
	const n = 25
	s := newSimPoller(t, n, 10)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue(fmt.Sprintf("room-%d", i%3), "light-"+id, id, bri(10+i))
	}
	s.start()
	g := NewWithT(t)
	var woken []string
	g.Eventually(func() []string { woken = append(woken, s.woken()...); return woken }, 10*time.Second, 20*time.Millisecond).Should(HaveLen(n))
	g.Expect(s.lightCommands()).To(HaveLen(n), "one command per HueLight, nobody asked twice")
	g.Expect(s.sim.Overloads()).To(BeZero(), "never faster than the bridge's rate")
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.Bri).To(Equal(10 + i))
	}
}

// TestNewerBodyReplacesTheQueuedOne: a HueLight whose spec changes while
// its command waits sends only the newer one, in the older one's place.
func TestNewerBodyReplacesTheQueuedOne(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	s.queue("a", "first", "1", bri(10))
	s.queue("a", "second", "2", bri(20))
	s.queue("a", "first", "1", bri(99))
	s.start()
	g := NewWithT(t)
	g.Eventually(s.lightCommands, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{"1", "2"}))
	var body map[string]any
	g.Expect(json.Unmarshal(s.sim.Commands()[0].Body, &body)).To(Succeed())
	g.Expect(body["bri"]).To(BeEquivalentTo(99))
}

// TestAReadWakesNoHueLightWhoseCommandIsInLine: a read that shows bulbs
// other than their HueLights want wakes only the HueLight with no command
// in line; the others' bulbs differ because their commands have not gone
// out, and each is woken once, when its command goes, not at every read.
// When the bridge stops answering, every HueLight is woken, its command in
// line or not: its status says so.
func TestAReadWakesNoHueLightWhoseCommandIsInLine(t *testing.T) {
	s := newSimPoller(t, 3, 10)
	s.queue("a", "first", "1", bri(10))
	s.queue("a", "second", "2", bri(20))
	s.p.Settle(types.NamespacedName{Namespace: "a", Name: "third"},
		Settling{Want: &Want{LightID: "3", Desired: bri(30), Reachable: true}})
	s.woken()
	g := NewWithT(t)
	for range 3 {
		g.Expect(s.p.Poll(s.ctx)).To(Succeed())
		g.Expect(s.woken()).To(Equal([]string{"a/third"}), "a read woke a HueLight whose command is in line")
	}

	s.sim.Offline(huesim.Refuse)
	g.Expect(s.p.Poll(s.ctx)).NotTo(Succeed())
	g.Expect(s.woken()).To(ConsistOf("a/first", "a/second", "a/third"), "the bridge stopped answering")
	g.Expect(s.sim.Online()).To(Succeed())
	g.Expect(s.p.Poll(s.ctx)).To(Succeed())
	g.Expect(s.woken()).To(ConsistOf("a/first", "a/second", "a/third"), "the bridge answers again")

	s.start()
	g.Expect(s.wokenAll(g, 2, 10*time.Second)).To(ConsistOf("a/first", "a/second"), "each woken when its command went")
	g.Expect(s.lightCommands()).To(Equal([]string{"1", "2"}))
}

// TestForgottenHueLightsCommandIsDropped: a HueLight deleted while its
// command waits sends nothing.
func TestForgottenHueLightsCommandIsDropped(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	s.queue("a", "deleted", "1", bri(10))
	s.queue("a", "kept", "2", bri(20))
	s.p.Release(types.NamespacedName{Namespace: "a", Name: "deleted"})
	s.start()
	g := NewWithT(t)
	// "deleted" was first in line: had it stayed, it would have gone first.
	g.Expect(s.wokenAll(g, 1, 5*time.Second)).To(Equal([]string{"a/kept"}))
	g.Expect(s.lightCommands()).To(Equal([]string{"2"}))
}

// TestQueuedSendErrorReachesTheHueLight: the bridge refuses a command the
// HueLight did not wait for (overloaded: 503, error 901); the HueLight is
// woken and its next Update returns the classified error (its condition),
// once, instead of sending again.
func TestQueuedSendErrorReachesTheHueLight(t *testing.T) {
	s := newSimPoller(t, 1, 10)
	s.sim.SetRate(1e-6, 0)
	s.queue("a", "lamp", "1", bri(99))
	s.start()
	g := NewWithT(t)
	g.Eventually(s.woken, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{"a/lamp"}))
	err := s.send("a", "lamp", "1", model.FullBody(bri(99)), model.FullBody(bri(99)))
	// Error 901, which the adapter's Classify names BridgeBusy (its
	// TestClassify, "overloaded").
	g.Expect(wire.ErrorType(err)).To(Equal(wire.TypeInternal), "got %v", err)
	g.Expect(s.lightCommands()).To(HaveLen(1), "the error was reported, not a new command sent")
}

// TestRefusedAttributeIsRememberedNotAnError: the bridge refuses one
// attribute of a queued command (xy [0.3, 1.7]: error 7) and applies the
// others. The refusal is remembered with the value sent, so the same value
// is not sent again, while another value is.
func TestRefusedAttributeIsRememberedNotAnError(t *testing.T) {
	s := newSimPoller(t, 1, 10)
	bad := model.Desired{On: true, Bri: ptr.To(40), XY: &[2]float64{0.3, 1.7}}
	s.queue("a", "lamp", "1", bad)
	s.start()
	g := NewWithT(t)
	g.Eventually(s.woken, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{"a/lamp"}))
	v, _ := s.p.cache.view("1")
	g.Expect(v.Refused).To(HaveKey("xy"))
	g.Expect(v.Refused["xy"].Type).To(Equal(wire.TypeInvalidValue))
	g.Expect(*v.State.Bri).To(Equal(40), "what the bridge accepted counts")
	want, notes := model.WithoutRefused(bad, v.Refused)
	g.Expect(model.Compare(want, v.State)).To(BeNil(), "nothing left to send unchanged")
	g.Expect(notes).To(ConsistOf(ContainSubstring("color.xy [0.3,1.7] (error 7")))

	fixed := model.Desired{On: true, Bri: ptr.To(40), XY: &[2]float64{0.3, 0.3}}
	want, notes = model.WithoutRefused(fixed, v.Refused)
	g.Expect(notes).To(BeEmpty())
	g.Expect(model.Compare(want, v.State)).NotTo(BeNil(), "a new value is sent")
}

// TestIdleBridgeAnswersInTheSameReconcile: with nothing queued, send
// returns the bridge's answer instead of Pending.
func TestIdleBridgeAnswersInTheSameReconcile(t *testing.T) {
	s := newSimPoller(t, 1, 10)
	s.start()
	body := model.FullBody(bri(200))
	g := NewWithT(t)
	g.Expect(s.send("a", "lamp", "1", body, body)).To(Succeed())
	g.Expect(s.lightCommands()).To(Equal([]string{"1"}))
	v, _ := s.p.cache.view("1")
	g.Expect(*v.State.Bri).To(Equal(200), "the cache has the state the bridge accepted")
	g.Expect(s.woken()).To(Equal([]string{"a/lamp"}), "the HueLight that waited is woken to report the accepted state at once")
}

// TestARefusalGoesOnlyToTheReconcileThatWaited: a command the bridge
// refuses while its HueLight's reconcile waits is that reconcile's error
// (it backs off); the HueLight is not woken to send it again at once.
func TestARefusalGoesOnlyToTheReconcileThatWaited(t *testing.T) {
	s := newSimPoller(t, 1, 10)
	s.start()
	s.sim.SetRate(1e-6, 0)
	body := model.FullBody(bri(200))
	g := NewWithT(t)
	g.Expect(s.send("a", "lamp", "1", body, body)).NotTo(Succeed())
	g.Expect(s.woken()).To(BeEmpty())
}

// TestGroupZeroWhenEveryLightWantsOneState: every bulb of the bridge is held
// by a HueLight wanting the same state: one PUT /groups/0/action does what
// light commands would need seconds for.
func TestGroupZeroWhenEveryLightWantsOneState(t *testing.T) {
	const n = 20
	s := newSimPoller(t, n, 5)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue(fmt.Sprintf("room-%d", i%2), "light-"+id, id, bri(50))
	}
	s.start()
	g := NewWithT(t)
	var woken []string
	g.Eventually(func() []string { woken = append(woken, s.woken()...); return woken }, 10*time.Second, 20*time.Millisecond).Should(HaveLen(n))
	g.Expect(s.groupCommands()).To(Equal([]string{"PUT /groups/0/action"}))
	g.Expect(len(s.lightCommands())).To(BeNumerically("<", n/2), "most lights were set by the group command")
	lights := map[string]LightView{}
	for i := 1; i <= n; i++ {
		lights[strconv.Itoa(i)], _ = s.p.cache.view(strconv.Itoa(i))
	}
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		l, _ := s.sim.Light(id)
		g.Expect(l.State.On && l.State.Bri == 50).To(BeTrue(), "bulb %s: %+v", id, l.State)
		g.Expect(*lights[id].State.Bri).To(Equal(50), "cache of bulb %s", id)
	}
	g.Expect(s.sim.Overloads()).To(BeZero())
}

// TestTemporaryGroupForASameStateSubset: some lights want one state, others
// are not Tether's: a temporary group is created, acted on and deleted.
func TestTemporaryGroupForASameStateSubset(t *testing.T) {
	const n, theirs = 24, 6
	s := newSimPoller(t, n+theirs, 5)
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("a", "light-"+id, id, bri(50))
	}
	s.start()
	g := NewWithT(t)
	var woken []string
	g.Eventually(func() []string { woken = append(woken, s.woken()...); return woken }, 15*time.Second, 20*time.Millisecond).Should(HaveLen(n))
	g.Eventually(s.groupCommands, 5*time.Second, 20*time.Millisecond).Should(HaveLen(3))
	cmds := s.groupCommands()
	g.Expect(cmds[0]).To(Equal("POST /groups"))
	id := strings.Split(cmds[1], "/")[2]
	g.Expect(cmds[1:]).To(Equal([]string{"PUT /groups/" + id + "/action", "DELETE /groups/" + id}))
	g.Expect(s.sim.Groups()).To(BeEmpty(), "no group left on the bridge")
	g.Expect(len(s.lightCommands())).To(BeNumerically("<", n/2))
	for i := 1; i <= n+theirs; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.On).To(Equal(i <= n), "bulb %d: %+v", i, l.State)
	}
	g.Expect(s.sim.Overloads()).To(BeZero())
}

// TestGroupTableFullFallsBackToLightCommands: the bridge refuses the
// temporary group (error 301); every light is still set, light by light,
// and the user's groups are untouched.
func TestGroupTableFullFallsBackToLightCommands(t *testing.T) {
	const n = 12
	s := newSimPoller(t, n+1, 5)
	for i := range huesim.MaxGroups {
		s.sim.AddGroup(fmt.Sprintf("Room %d", i), "1")
	}
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		s.queue("a", "light-"+id, id, bri(50))
	}
	s.start()
	g := NewWithT(t)
	g.Eventually(s.lightCommands, 15*time.Second, 20*time.Millisecond).Should(HaveLen(n))
	g.Expect(s.groupCommands()).To(Equal([]string{"POST /groups"}), "one refused creation, then light commands only")
	for _, c := range s.sim.Commands() {
		if c.Path == "/groups" {
			g.Expect(c.Errors).To(Equal([]int{huesim.ErrGroupTableFull}))
		}
	}
	for i := 1; i <= n; i++ {
		l, _ := s.sim.Light(strconv.Itoa(i))
		g.Expect(l.State.Bri).To(Equal(50))
	}
	g.Expect(s.sim.Groups()).To(HaveLen(huesim.MaxGroups))
	g.Expect(s.sim.Overloads()).To(BeZero())
}

// TestStaleTemporaryGroupsAreRemovedAtStart: a crash left a tether-* light
// group; the sender deletes it when it starts, and leaves the user's rooms
// alone, even one whose name starts the same (a HueGroup's may).
func TestStaleTemporaryGroupsAreRemovedAtStart(t *testing.T) {
	s := newSimPoller(t, 2, 10)
	stale := s.sim.AddLightGroup(tempGroupPrefix+"crashed", "1", "2")
	room := s.sim.AddGroup("Living room", "1")
	tetherRoom := s.sim.AddGroup(tempGroupPrefix+"room", "2")
	s.start()
	g := NewWithT(t)
	g.Eventually(func() []string { ids := keysOf(s.sim.Groups()); slices.Sort(ids); return ids }, 5*time.Second, 20*time.Millisecond).
		Should(Equal([]string{room, tetherRoom}))
	g.Expect(s.groupCommands()).To(Equal([]string{"DELETE /groups/" + stale}))
}

func keysOf(m map[string]huesim.Group) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestGroupZeroNeverTouchesAPausedHueLightsBulb: every bulb wants one
// state, but one HueLight was paused after it said so: group 0 would change
// its bulb, so a temporary group of the queued lights is used instead and
// that bulb is left alone.
func TestGroupZeroNeverTouchesAPausedHueLightsBulb(t *testing.T) {
	const n = 20
	s := newSimPoller(t, n, 5)
	outside := strconv.Itoa(n)
	before, _ := s.sim.Light(outside)
	paused := types.NamespacedName{Namespace: "a", Name: "paused"}
	s.p.Settle(paused, Settling{Want: &Want{LightID: outside, Desired: bri(50), Reachable: true}})
	s.p.Settle(paused, Settling{Unwatch: true, Generation: 1, End: PassMatched})
	for i := 1; i < n; i++ {
		id := strconv.Itoa(i)
		s.queue("a", "light-"+id, id, bri(50))
	}
	s.start()
	g := NewWithT(t)
	var woken []string
	g.Eventually(func() []string { woken = append(woken, s.woken()...); return woken }, 15*time.Second, 20*time.Millisecond).Should(HaveLen(n - 1))
	g.Eventually(s.groupCommands, 5*time.Second, 20*time.Millisecond).Should(HaveLen(3))
	g.Expect(s.groupCommands()).NotTo(ContainElement("PUT /groups/0/action"))
	after, _ := s.sim.Light(outside)
	g.Expect(after.State).To(Equal(before.State), "the bulb outside the batch was changed")
	g.Expect(before.State.On && before.State.Bri == 50).To(BeFalse(), "the test needs that bulb in another state")
}

package bridge

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/internal/tcpproxy"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

type streamSession struct {
	*Session
	mu    sync.Mutex
	woken map[types.NamespacedName]int
}

func startStreamSession(t *testing.T, sim *huesim.Server, settings StreamSettings) *streamSession {
	return startStreamSessionEvery(t, sim, settings, 500*time.Millisecond)
}

// startStreamSessionEvery is startStreamSession with the poll interval.
func startStreamSessionEvery(t *testing.T, sim *huesim.Server, settings StreamSettings, interval time.Duration) *streamSession {
	t.Helper()
	c, err := wire.NewClientV2(sim.TLSAddr(), simUser, 2*time.Second, wire.Trust{CABundle: sim.CACertPEM()})
	if err != nil {
		t.Fatal(err)
	}
	return startStreamSessionWith(t, c, settings, interval)
}

// startStreamSessionWith is startStreamSessionEvery with a client of the
// test's own.
func startStreamSessionWith(t *testing.T, c wire.Client, settings StreamSettings, interval time.Duration) *streamSession {
	t.Helper()
	ss := &streamSession{woken: map[types.NamespacedName]int{}}
	lights := make(chan Wake, 1000)
	ss.Session = New(Options{BridgeID: "SIM", Client: c, Log: logr.Discard(), Wakes: Wakes{Lights: lights},
		Settings: Settings{Interval: interval, CommandsPerSecond: 10, Stream: settings}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case w := <-lights:
				ss.mu.Lock()
				ss.woken[w.Object]++
				ss.mu.Unlock()
			}
		}
	}()
	ss.Start(ctx)
	return ss
}

func (ss *streamSession) wakes(k types.NamespacedName) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.woken[k]
}

func eventually(t *testing.T, what string, timeout time.Duration, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamPushesDrift: with the stream up, a change made in "the Hue
// app" wakes the HueLight whose bulb drifted, and the bridge is not polled;
// a new light and a rename arrive by events too.
func TestStreamPushesDrift(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall", "desk"}})
	s := startStreamSession(t, sim, StreamSettings{})
	hall := types.NamespacedName{Namespace: "home", Name: "hall"}
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	s.Settle(hall, Settling{Want: &Want{Name: "hall", LightID: "1", Desired: model.Desired{On: false}, Reachable: true}})
	sim.ResetGetCounts()
	before := s.wakes(hall)

	_ = sim.ChangeLight("1", func(st *huesim.LightState) { st.On = true })
	eventually(t, "the drift wakes the HueLight", 3*time.Second, func() bool { return s.wakes(hall) > before })
	if l, ok := s.light("1"); !ok || !l.State.On {
		t.Fatalf("the cache did not take the event: %+v", l)
	}
	// The bridge is reachable only through its connectivity: an event.
	_ = sim.SetReachable("1", false)
	eventually(t, "unreachable by event", 3*time.Second, func() bool { l, _ := s.light("1"); return !l.State.Reachable })
	id := sim.AddLight("attic")
	eventually(t, "a new light by event", 3*time.Second, func() bool { l, ok := s.light(id); return ok && l.Name == "attic" })
	// Renamed in the Hue app (through the v1 API): the device's name.
	req, _ := http.NewRequest(http.MethodPut, sim.URL()+"/api/"+simUser+"/lights/"+id, strings.NewReader(`{"name":"loft"}`))
	if res, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	eventually(t, "a rename by event", 3*time.Second, func() bool { l, _ := s.light(id); return l.Name == "loft" })
	time.Sleep(3 * s.Settings().Interval) // three poll intervals of steady state
	if n := sim.GetCounts()["/clip/v2/resource"]; n != 0 {
		t.Errorf("%d full reads while the stream was live: want none (only the safety read)", n)
	}
	if st := s.stream.status(); st.State != StreamConnected || st.LastEvent.IsZero() {
		t.Errorf("stream status %+v", st)
	}
}

// TestStreamResumesWithoutMissingAChange: the stream is dropped and a
// light changed while it is down; the full read after the reconnect shows
// the change. The poll interval is an hour: only that read can show it.
func TestStreamResumesWithoutMissingAChange(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	s := startStreamSessionEvery(t, sim, StreamSettings{}, time.Hour)
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	sim.DropNewEventStreams(1) // the next stream ends at once: a reconnect after a drop
	sim.DropEventStreams()
	_ = sim.ChangeLight("1", func(st *huesim.LightState) { st.Bri = 42 }) // no stream to carry it
	eventually(t, "the change made while the stream was down", 10*time.Second, func() bool {
		l, _ := s.light("1")
		return l.State.Bri != nil && *l.State.Bri == 42
	})
	eventually(t, "live again", 10*time.Second, s.stream.live)
	if st := s.stream.status(); st.Reconnects < 2 {
		t.Errorf("reconnects %d, want the drop and the refused one", st.Reconnects)
	}
}

// TestStreamSilenceWatchdog: a stream that stays open and says nothing is
// reconnected (and everything read) once per Silence, not counted as a
// drop.
func TestStreamSilenceWatchdog(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	s := startStreamSession(t, sim, StreamSettings{Silence: 700 * time.Millisecond, DropLimit: 2})
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	sim.HangEventStreams(true)
	_ = sim.ChangeLight("1", func(st *huesim.LightState) { st.Bri = 77 })
	eventually(t, "a silent stream is reconnected and the change read", 5*time.Second, func() bool {
		l, _ := s.light("1")
		return l.State.Bri != nil && *l.State.Bri == 77
	})
	eventually(t, "two silences", 5*time.Second, func() bool { return s.stream.status().Reconnects >= 2 })
	if st := s.stream.status(); st.State == StreamPolling {
		t.Errorf("silence counted as drops: %+v", st)
	}
}

// TestStreamFallsBackToPolling: a bridge that drops every stream makes the
// session poll (and say so); once a stream stays up, polling stops.
func TestStreamFallsBackToPolling(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	sim.DropNewEventStreams(1000)
	s := startStreamSession(t, sim, StreamSettings{DropLimit: 3, Stable: time.Second, MaxBackoff: 200 * time.Millisecond})
	eventually(t, "polling after repeated drops", 10*time.Second, func() bool { return s.stream.status().State == StreamPolling })
	if msg := s.stream.status().Message; !strings.Contains(msg, "dropped its event stream") {
		t.Errorf("message %q", msg)
	}
	sim.ResetGetCounts()
	_ = sim.ChangeLight("1", func(st *huesim.LightState) { st.Bri = 33 })
	eventually(t, "polled", 5*time.Second, func() bool { l, _ := s.light("1"); return l.State.Bri != nil && *l.State.Bri == 33 })
	sim.DropNewEventStreams(0)
	eventually(t, "connected again once a stream stays up", 15*time.Second, func() bool { return s.stream.status().State == StreamConnected })
	_ = ptr.To(0)
}

// TestStreamOutageIsBounded: a v2 bridge that leaves the network (every
// connection closed, new ones refused, behind a TCP proxy that counts the
// connections attempted) costs one connection per poll interval and the
// stream's one reconnect after the drop: a stream that failed to connect
// tries again only once a read that started after the failure succeeded,
// so the polls alone find out when the bridge is back. Its own backoff
// (capped at 10 ms here, the poll interval 1 s) would have tried about a
// hundred times a second until the first poll failed. Back online, the
// stream is live again and the change made meanwhile is read.
func TestStreamOutageIsBounded(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	proxy, err := tcpproxy.New(sim.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	c, err := wire.NewClientV2(proxy.Addr(), simUser, 2*time.Second, wire.Trust{CABundle: sim.CACertPEM()})
	if err != nil {
		t.Fatal(err)
	}
	const interval = time.Second
	s := startStreamSessionWith(t, c, StreamSettings{MaxBackoff: 10 * time.Millisecond}, interval)
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)

	proxy.SetOffline(true)
	const outage = 3 * time.Second
	time.Sleep(outage) // the window measured, not a synchronisation
	_ = sim.ChangeLight("1", func(st *huesim.LightState) { st.Bri = 21 })
	calls := proxy.SetOffline(false)
	// A poll per tick (a tick at both ends of the window at most) and the
	// stream's reconnect after the drop.
	bound := int(outage/interval) + 1 + 1
	t.Logf("%d connections attempted in %s offline (poll interval %s)", calls, outage, interval)
	if calls > bound {
		t.Errorf("%d connections attempted in %s offline: want at most one per poll interval and the stream's one reconnect (%d)", calls, outage, bound)
	}
	eventually(t, "live again once the bridge is back", 10*time.Second, s.stream.live)
	if l, _ := s.light("1"); l.State.Bri == nil || *l.State.Bri != 21 {
		t.Errorf("the change made during the outage was not read: %+v", l.State)
	}
}

// TestCommandsWaitWhileTheBridgeDoesNotAnswer: commands in line when a
// bridge leaves the network (behind a TCP proxy that counts connections),
// and temporary groups and scenes whose deletion failed, wait until a read
// finds the bridge answering again: the outage costs one read per poll
// interval, the v2 stream's one try and the one command that found the
// bridge gone, not a try per command in line nor per pass of the group
// loop (bench figure 11 counted the retried deletion of a temporary group
// left by the drift correction that ran as the bridge went). Back online,
// every command goes out and the leftovers are deleted. On both APIs (a
// v2 session keeps to temporary groups: its client has no v1 scenes).
func TestCommandsWaitWhileTheBridgeDoesNotAnswer(t *testing.T) {
	for _, api := range []string{wire.APIV1, wire.APIV2} {
		t.Run(api, func(t *testing.T) { testCommandsWaitWhileTheBridgeDoesNotAnswer(t, api) })
	}
}

func testCommandsWaitWhileTheBridgeDoesNotAnswer(t *testing.T, api string) {
	const lights = 30 // 3 s of light commands at 10/s
	var names []string
	for i := range lights {
		names = append(names, fmt.Sprintf("bulb-%d", i+1))
	}
	sim := huetest.StartSim(t, huesim.Options{Lights: names})
	target := sim.Addr()
	if api == wire.APIV2 {
		target = sim.TLSAddr()
	}
	proxy, err := tcpproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	c := wire.NewClient(proxy.Addr(), simUser, 2*time.Second)
	if api == wire.APIV2 {
		if c, err = wire.NewClientV2(proxy.Addr(), simUser, 2*time.Second, wire.Trust{CABundle: sim.CACertPEM()}); err != nil {
			t.Fatal(err)
		}
	}
	const interval = time.Second
	s := startStreamSessionWith(t, c, StreamSettings{MaxBackoff: 10 * time.Millisecond}, interval)
	eventually(t, "the bridge read", 5*time.Second, func() bool {
		_, err, fresh := s.cache.current(time.Minute)
		return fresh && err == nil && (api == wire.APIV1 || s.stream.live())
	})
	group := sim.AddLightGroup(tempGroupPrefix+"left", "1", "2")
	var scene string
	if _, ok := wire.RoomsOf(c); ok {
		scene = sim.AddScene(tempScenePrefix+"left", "1", "2")
	}

	// Distinct states, so that they go as light commands one slot each;
	// handed over as a HueLight under load does (it does not wait).
	var orders []*order
	for i := range lights {
		bri := 10 + i
		body := model.StateBody{On: ptr.To(true), Bri: &bri}
		o := s.sender.enqueue(Change{Key: types.NamespacedName{Namespace: "ns", Name: names[i]}, LightID: strconv.Itoa(i + 1), Body: body, Full: body})
		_, _ = s.sender.await(context.Background(), &o.handover, 0)
		orders = append(orders, o)
	}
	proxy.SetOffline(true)
	eventually(t, "a read found the bridge gone", 5*time.Second, func() bool { return s.cache.health().Err != nil })
	// As if deleting them after the bridge went had failed.
	s.sender.mu.Lock()
	s.sender.tempGroups.leftovers = append(s.sender.tempGroups.leftovers, group)
	if scene != "" {
		s.sender.scenes.leftovers = append(s.sender.scenes.leftovers, scene)
	}
	s.sender.mu.Unlock()
	const outage = 3 * time.Second
	for end := time.Now().Add(outage); time.Now().Before(end); {
		kick(s.sender.groupKick)           // what every enqueue and arrival does
		time.Sleep(100 * time.Millisecond) // the window measured, not a synchronisation
	}
	calls := proxy.SetOffline(false)
	// Up to the first failed read: polls started within the window plus
	// the one before it was known, the stream's try, one command.
	bound := int(outage/interval) + 2 + 1 + 1
	t.Logf("%d connections attempted while offline (poll interval %s, %d commands in line)", calls, interval, lights)
	if calls > bound {
		t.Errorf("%d connections attempted while the bridge was offline: want at most one per poll interval, the stream's try and one command (%d)", calls, bound)
	}
	// The command that found the bridge gone failed (its HueLight is woken
	// to send again); every other one goes out once it is back.
	eventually(t, "every held command sent once the bridge is back", 15*time.Second, func() bool {
		failed := 0
		for i, o := range orders {
			select {
			case <-o.done:
			default:
				return false
			}
			if o.err != nil {
				failed++
			} else if l, _ := sim.Light(strconv.Itoa(i + 1)); l.State.Bri != 10+i {
				return false
			}
		}
		return failed <= 1
	})
	eventually(t, "the leftover group and scene deleted", 10*time.Second, func() bool {
		_, g := sim.Groups()[group]
		_, sc := sim.Scenes()[scene]
		return !g && !sc
	})
}

// TestStreamEndsWhenTheClientChanges: a HueBridge changed from V2 to V1
// gives its session a v1 client; the v2 stream ends and the session polls.
func TestStreamEndsWhenTheClientChanges(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	s := startStreamSession(t, sim, StreamSettings{})
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	s.UseClient(wire.NewClient(sim.Addr(), simUser, 2*time.Second))
	eventually(t, "the stream is closed", 5*time.Second, func() bool { return sim.EventStreams() == 0 && !s.stream.live() })
	sim.ResetGetCounts()
	eventually(t, "polled over v1", 5*time.Second, func() bool { return sim.GetCounts()["/lights"] > 0 })
	if st := s.stream.status(); st.State != "" {
		t.Errorf("a v1 session reports a stream: %+v", st)
	}
}

// light is one bulb as the last read has it.
func (s *Session) light(id string) (model.Light, bool) {
	lights, _, _ := s.cache.current(0)
	l, ok := lights[id]
	return l, ok
}

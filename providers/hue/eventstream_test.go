package hue

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/tcpproxy"
)

func TestSSEReader(t *testing.T) {
	in := ": hi\n\nid: 1700000000:0\ndata: [1]\n\n\r\nid: 1700000000:1\r\ndata: [2,\r\ndata: 3]\r\n\r\nretry: 5\nevent: x\ndata:[4]\n\ndata: [5]"
	r := sseReader{r: bufio.NewReader(strings.NewReader(in))}
	want := []sseMessage{{}, {id: "1700000000:0", data: "[1]"}, {id: "1700000000:1", data: "[2,\n3]"}, {data: "[4]"}}
	for i, w := range want {
		got, err := r.next()
		if err != nil || got != w {
			t.Fatalf("message %d: %+v %v, want %+v", i, got, err, w)
		}
	}
	if _, err := r.next(); err == nil {
		t.Fatal("a message cut off by the end of the stream was delivered")
	}
}

// streamSession runs a session of a v2 client on the simulator, with its
// wake-ups counted per HueLight.
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
	return startStreamSessionWith(t, v2For(t, sim, simUser, Trust{}), settings, interval)
}

// startStreamSessionWith is startStreamSessionEvery with a client of the
// test's own.
func startStreamSessionWith(t *testing.T, c Client, settings StreamSettings, interval time.Duration) *streamSession {
	t.Helper()
	ss := &streamSession{woken: map[types.NamespacedName]int{}}
	ss.Session = newSession(sessionOptions{
		bridgeID: "SIM", client: c, interval: interval, perSecond: 10,
		wakeLights: func(keys []types.NamespacedName) {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			for _, k := range keys {
				ss.woken[k]++
			}
		},
		wakeBridges: func() {},
		log:         logr.Discard(),
		stream:      settings,
	})
	ctx, cancel := context.WithCancel(context.Background())
	ss.stop = cancel
	t.Cleanup(cancel)
	go ss.run(ctx)
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
	sim := startSim(t, huesim.Options{Lights: []string{"hall", "desk"}})
	s := startStreamSession(t, sim, StreamSettings{})
	hall := types.NamespacedName{Namespace: "home", Name: "hall"}
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	s.Watch(hall, watch{name: "hall", lightID: "1", want: Desired{On: false}, reachable: true})
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
	time.Sleep(3 * s.interval) // three poll intervals of steady state
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
	sim := startSim(t, huesim.Options{Lights: []string{"hall"}})
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
	sim := startSim(t, huesim.Options{Lights: []string{"hall"}})
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
	sim := startSim(t, huesim.Options{Lights: []string{"hall"}})
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
	sim := startSim(t, huesim.Options{Lights: []string{"hall"}})
	proxy, err := tcpproxy.New(sim.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	c, err := NewClientV2(proxy.Addr(), simUser, 2*time.Second, Trust{CABundle: sim.CACertPEM()})
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

// TestStreamEndsWhenTheClientChanges: a HueBridge changed from V2 to V1
// gives its session a v1 client; the v2 stream ends and the session polls.
func TestStreamEndsWhenTheClientChanges(t *testing.T) {
	sim := startSim(t, huesim.Options{Lights: []string{"hall"}})
	s := startStreamSession(t, sim, StreamSettings{})
	eventually(t, "the stream is live", 5*time.Second, s.stream.live)
	s.useClient(NewClient(sim.Addr(), simUser, 2*time.Second))
	eventually(t, "the stream is closed", 5*time.Second, func() bool { return sim.EventStreams() == 0 && !s.stream.live() })
	sim.ResetGetCounts()
	eventually(t, "polled over v1", 5*time.Second, func() bool { return sim.GetCounts()["/lights"] > 0 })
	if st := s.stream.status(); st.State != "" {
		t.Errorf("a v1 session reports a stream: %+v", st)
	}
}

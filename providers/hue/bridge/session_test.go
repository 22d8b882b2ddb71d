package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// newTestSession is a session of client c whose loops are not started
// (tests read with Poll), its wake-ups collected in channels.
func newTestSession(c wire.Client, perSecond float64) (*Session, chan Wake, chan string) {
	lights, bridges := make(chan Wake, 1000), make(chan string, 100)
	s := New(Options{BridgeID: "FAKE", Client: c, Log: logr.Discard(),
		Settings: Settings{Interval: time.Hour, CommandsPerSecond: perSecond},
		Wakes:    Wakes{Lights: lights, Bridge: bridges}})
	return s, lights, bridges
}

// drainIDs returns the bridge ids sent so far.
func drainIDs(ch chan string) []string {
	var out []string
	for {
		select {
		case id := <-ch:
			out = append(out, id)
		default:
			return out
		}
	}
}

func drain(ch chan Wake) []string {
	var out []string
	for {
		select {
		case ev := <-ch:
			out = append(out, ev.Object.String())
		default:
			return out
		}
	}
}

func TestSessionWakesOnlyDriftedLights(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway", "kitchen")
	f.Set("1", func(s *model.LightState) { s.On, s.Bri = true, ptr.To(254) })
	f.Set("2", func(s *model.LightState) { s.On = true })
	p, lights, _ := newTestSession(f, 10)
	ctx := context.Background()
	if err := p.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	hall, kitchen := types.NamespacedName{Namespace: "entrance", Name: "hall"}, types.NamespacedName{Namespace: "home", Name: "kitchen"}
	p.Settle(hall, Settling{Want: &Want{LightID: "1", Desired: model.Desired{On: true, Bri: ptr.To(254)}, Reachable: true}})
	p.Settle(kitchen, Settling{Want: &Want{LightID: "2", Desired: model.Desired{On: true}, Reachable: true}})
	drain(lights)

	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"nothing changed", func() {}, nil},
		{"brightness the spec does not set", func() { f.Set("2", func(s *model.LightState) { s.Bri = ptr.To(3) }) }, nil},
		{"hallway switched off in the app", func() { f.Set("1", func(s *model.LightState) { s.On = false }) }, []string{"entrance/hall"}},
		{"kitchen unreachable", func() {
			f.Set("1", func(s *model.LightState) { s.On = true })
			f.Set("2", func(s *model.LightState) { s.Reachable = false })
		}, []string{"home/kitchen"}},
	}
	for _, st := range steps {
		st.change()
		if err := p.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		if got := drain(lights); len(got) != len(st.want) || (len(got) > 0 && got[0] != st.want[0]) {
			t.Fatalf("%s: woke %v, want %v", st.name, got, st.want)
		}
	}
}

func TestSessionWakesEveryoneWhenTheBridgeComesAndGoes(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway")
	p, lights, bridges := newTestSession(f, 10)
	ctx := context.Background()
	_ = p.Poll(ctx)
	p.Settle(types.NamespacedName{Namespace: "a", Name: "x"}, Settling{Want: &Want{LightID: "1", Desired: model.Desired{On: false}, Reachable: true}})
	drain(lights)

	f.Fail(fakebridge.NetErr{})
	_ = p.Poll(ctx)
	_ = p.Poll(ctx)
	if got := drain(lights); len(got) != 1 {
		t.Fatalf("going offline woke %v, want the HueLight once", got)
	}
	if got := drainIDs(bridges); len(got) != 1 || got[0] != "FAKE" {
		t.Fatalf("going offline woke bridges %v", got)
	}
	if _, err := p.Lights(ctx); !wire.IsNetwork(err) {
		t.Fatalf("Lights while offline: %v", err)
	}
	f.Fail(nil)
	_ = p.Poll(ctx)
	if got := drain(lights); len(got) != 1 {
		t.Fatalf("coming back woke %v, want the HueLight once", got)
	}
	if got := drainIDs(bridges); len(got) != 1 {
		t.Fatalf("coming back woke bridges %v", got)
	}
}

func TestLightsReadTheCache(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway")
	p, _, _ := newTestSession(f, 10)
	for range 50 {
		if _, err := p.Lights(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if gets, _ := f.Calls(); gets != 1 {
		t.Fatalf("50 observations made %d GETs, want 1", gets)
	}
	body := model.StateBody{On: ptr.To(true), Bri: ptr.To(9)}
	p.cache.answered(time.Now(), body, wire.Result{Accepted: body}, "1")
	if v, _ := p.cache.view("1"); !v.State.On || *v.State.Bri != 9 || !v.Unconfirmed {
		t.Fatalf("cache after an accepted command: %+v", v)
	}
}

type neterr struct{}

func (neterr) Error() string   { return "connection refused" }
func (neterr) Timeout() bool   { return false }
func (neterr) Temporary() bool { return true }

// TestReadsConfirmOrContradictWrites: a read after a command either shows
// what the bridge accepted (a confirmed write, which starts the stall
// breaker over) or not (the stall key stays), and attributes the bridge
// never reports stay known from what it accepted.
func TestReadsConfirmOrContradictWrites(t *testing.T) {
	f := fakebridge.NewFakeBridge("strip")
	p, _, _ := newTestSession(f, 10)
	ctx := context.Background()
	_ = p.Poll(ctx)
	f.Set("1", func(s *model.LightState) { s.CT = nil }) // the bridge leaves ct out from now on

	sent := model.StateBody{On: ptr.To(true), Bri: ptr.To(50), CT: ptr.To(300)}
	p.cache.answered(time.Now(), sent, wire.Result{Accepted: sent}, "1")
	v, _ := p.cache.view("1")
	if !v.Unconfirmed || *v.State.Bri != 50 {
		t.Fatalf("before a read: %+v", v)
	}
	f.Set("1", func(s *model.LightState) { s.On, s.Bri = true, ptr.To(50) })
	_ = p.Poll(ctx)
	v, _ = p.cache.view("1")
	if v.Unconfirmed || v.Confirmed != 1 || *v.State.CT != 300 || len(v.Assumed) != 1 || v.Assumed[0] != "ct" {
		t.Fatalf("after a read that shows it: %+v", v)
	}

	// No transition: a read at once decides (TestAReadBackWakesWhatItConfirms
	// has reads during a transition).
	again := model.StateBody{On: ptr.To(true), Bri: ptr.To(60), TransitionTime: ptr.To(0)}
	p.cache.answered(time.Now(), again, wire.Result{Accepted: again}, "1")
	_ = p.Poll(ctx) // the bulb still shows 50
	if v, _ = p.cache.view("1"); v.Confirmed != 1 || *v.State.Bri != 50 {
		t.Fatalf("after a read that contradicts it: %+v", v)
	}
	_ = p.Poll(ctx)
	if v, _ = p.cache.view("1"); v.Confirmed != 1 {
		t.Fatalf("an attribute never reported confirmed a write: %+v", v)
	}
}

// TestALaterColourReplacesAnEarlierOneNotYetReadBack: ct accepted, then xy
// accepted before any read. A CLIP v2 bridge in xy mode reports no colour
// temperature (mirek null), so no read ever clears the ct; kept, it read as
// the light's state ("ct 250") and every later command sent the colour again.
func TestALaterColourReplacesAnEarlierOneNotYetReadBack(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway")
	p, _, _ := newTestSession(f, 10)
	ctx := context.Background()
	_ = p.Poll(ctx)

	ct := model.StateBody{CT: ptr.To(250)}
	p.cache.answered(time.Now(), ct, wire.Result{Accepted: ct}, "1")
	white := model.StateBody{XY: &[2]float64{0.3227, 0.329}}
	p.cache.answered(time.Now(), white, wire.Result{Accepted: white}, "1")
	f.Set("1", func(s *model.LightState) {
		s.XY, s.ColorMode, s.CT, s.Hue, s.Sat = white.XY, "xy", nil, nil, nil
	})
	_ = p.Poll(ctx)

	v, _ := p.cache.view("1")
	if v.State.ColorMode != "xy" || len(v.Assumed) != 0 {
		t.Fatalf("after a read showing xy: colour mode %q, ct %v, assumed %v; want xy and nothing assumed",
			v.State.ColorMode, v.State.CT, v.Assumed)
	}
}

// TestAColourTemperatureNotYetReadBackIsUnconfirmed: a bulb in xy mode on a
// CLIP v2 bridge reports no colour temperature (mirek null). A ct the
// bridge just accepted is unconfirmed until a read after the command,
// which shows it (the bulb has switched); only a read after the command
// that still leaves it out makes it one the bridge does not report.
func TestAColourTemperatureNotYetReadBackIsUnconfirmed(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway")
	p, _, _ := newTestSession(f, 10)
	ctx := context.Background()
	f.Set("1", func(s *model.LightState) { s.XY, s.ColorMode, s.CT = &[2]float64{0.675, 0.322}, "xy", nil })
	_ = p.Poll(ctx)

	// No transition: each read below decides.
	ct := model.StateBody{On: ptr.To(true), CT: ptr.To(500), TransitionTime: ptr.To(0)}
	p.cache.answered(time.Now(), ct, wire.Result{Accepted: ct}, "1")
	if v, _ := p.cache.view("1"); !v.Unconfirmed || len(v.Assumed) != 0 {
		t.Fatalf("before a read: unconfirmed %v, assumed %v; want unconfirmed and nothing assumed", v.Unconfirmed, v.Assumed)
	}
	f.Set("1", func(s *model.LightState) { s.CT, s.ColorMode = ptr.To(500), "ct" })
	_ = p.Poll(ctx)
	if v, _ := p.cache.view("1"); v.Unconfirmed || len(v.Assumed) != 0 || *v.State.CT != 500 {
		t.Fatalf("after a read showing ct 500: %+v", v)
	}

	f.Set("1", func(s *model.LightState) { s.CT, s.ColorMode = nil, "" }) // a bridge that never reports ct
	p.cache.answered(time.Now(), ct, wire.Result{Accepted: ct}, "1")
	_ = p.Poll(ctx)
	if v, _ := p.cache.view("1"); len(v.Assumed) != 1 || v.Assumed[0] != "ct" {
		t.Fatalf("after a read without ct: assumed %v, want ct", v.Assumed)
	}
}

// TestSessionsOfABridgeShareItsGroupBudget: sessions given one group
// budget (the registry gives a bridge's sessions the bridge's, one after
// the other) take their group slots from it, so a stopping session's last
// deletions and its successor's first writes never come closer than a
// slot; a session given none has its own.
func TestSessionsOfABridgeShareItsGroupBudget(t *testing.T) {
	budget := NewGroupBudget()
	opts := func(b *rate.Limiter) Options {
		return Options{BridgeID: "FAKE", Log: logr.Discard(), Settings: Settings{Interval: time.Hour, CommandsPerSecond: 10}, GroupBudget: b}
	}
	old, successor, alone := New(opts(budget)), New(opts(budget)), New(opts(nil))
	if !old.sender.groups.Allow() {
		t.Fatal("a fresh group budget has no slot")
	}
	if successor.sender.groups.Allow() {
		t.Error("the successor took a group slot its predecessor had just taken")
	}
	if !alone.sender.groups.Allow() {
		t.Error("a session given no budget has none of its own")
	}
}

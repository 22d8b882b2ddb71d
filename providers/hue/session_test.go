package hue

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// newTestSession is a session of client c whose loop is not started (tests
// read with Poll), its wake-ups collected in channels.
func newTestSession(c Client, perSecond float64) (*Session, chan Wake, chan Wake) {
	lights, bridges := make(chan Wake, 1000), make(chan Wake, 100)
	s := newSession(sessionOptions{
		bridgeID: "FAKE", client: c, interval: time.Hour, perSecond: perSecond,
		wakeLights: func(keys []types.NamespacedName) {
			for _, k := range keys {
				lights <- Wake{Object: k}
			}
		},
		wakeBridges: func() { bridges <- Wake{Object: types.NamespacedName{Name: "home"}} },
		log:         logr.Discard(),
	})
	return s, lights, bridges
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
	f := newFakeBridge("hallway", "kitchen")
	f.set("1", func(s *LightState) { s.On, s.Bri = true, ptr.To(254) })
	f.set("2", func(s *LightState) { s.On = true })
	p, lights, _ := newTestSession(f, 10)
	ctx := context.Background()
	if err := p.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	hall, kitchen := types.NamespacedName{Namespace: "entrance", Name: "hall"}, types.NamespacedName{Namespace: "home", Name: "kitchen"}
	p.Watch(hall, watch{lightID: "1", want: Desired{On: true, Bri: ptr.To(254)}, reachable: true})
	p.Watch(kitchen, watch{lightID: "2", want: Desired{On: true}, reachable: true})
	drain(lights)

	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"nothing changed", func() {}, nil},
		{"brightness the spec does not set", func() { f.set("2", func(s *LightState) { s.Bri = ptr.To(3) }) }, nil},
		{"hallway switched off in the app", func() { f.set("1", func(s *LightState) { s.On = false }) }, []string{"entrance/hall"}},
		{"kitchen unreachable", func() {
			f.set("1", func(s *LightState) { s.On = true })
			f.set("2", func(s *LightState) { s.Reachable = false })
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
	f := newFakeBridge("hallway")
	p, lights, bridges := newTestSession(f, 10)
	ctx := context.Background()
	_ = p.Poll(ctx)
	p.Watch(types.NamespacedName{Namespace: "a", Name: "x"}, watch{lightID: "1", want: Desired{On: false}, reachable: true})
	drain(lights)

	f.err = &neterr{}
	_ = p.Poll(ctx)
	_ = p.Poll(ctx)
	if got := drain(lights); len(got) != 1 {
		t.Fatalf("going offline woke %v, want the HueLight once", got)
	}
	if got := drain(bridges); len(got) != 1 || got[0] != "/home" {
		t.Fatalf("going offline woke bridges %v", got)
	}
	if _, err := p.Lights(ctx); !isNetwork(err) {
		t.Fatalf("Lights while offline: %v", err)
	}
	f.err = nil
	_ = p.Poll(ctx)
	if got := drain(lights); len(got) != 1 {
		t.Fatalf("coming back woke %v, want the HueLight once", got)
	}
	if got := drain(bridges); len(got) != 1 {
		t.Fatalf("coming back woke bridges %v", got)
	}
}

func TestLightsReadTheCache(t *testing.T) {
	f := newFakeBridge("hallway")
	p, _, _ := newTestSession(f, 10)
	for range 50 {
		if _, err := p.Lights(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if gets, _ := f.calls(); gets != 1 {
		t.Fatalf("50 observations made %d GETs, want 1", gets)
	}
	p.cache.accepted(StateBody{On: ptr.To(true), Bri: ptr.To(9)}, "1")
	lights, _ := p.Lights(context.Background())
	if l := lights["1"]; !l.State.On || *l.State.Bri != 9 {
		t.Fatalf("cache after an accepted command: %+v", l)
	}
}

type neterr struct{}

func (neterr) Error() string   { return "connection refused" }
func (neterr) Timeout() bool   { return false }
func (neterr) Temporary() bool { return true }

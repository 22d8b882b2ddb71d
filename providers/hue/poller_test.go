package hue

import (
	"context"
	"testing"
	"time"

	"github.com/amimof/huego"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

func newTestPoller(f *fakeBridge) (*Poller, chan event.GenericEvent, chan event.GenericEvent) {
	lights, bridges := make(chan event.GenericEvent, 100), make(chan event.GenericEvent, 100)
	return newPoller("home", f, time.Hour, 10, lights, bridges, logr.Discard()), lights, bridges
}

func drain(ch chan event.GenericEvent) []string {
	var out []string
	for {
		select {
		case ev := <-ch:
			out = append(out, ev.Object.GetNamespace()+"/"+ev.Object.GetName())
		default:
			return out
		}
	}
}

func TestPollerWakesOnlyDriftedLights(t *testing.T) {
	f := newFakeBridge("hallway", "kitchen")
	f.set("1", func(s *huego.State) { s.On, s.Bri = true, 254 })
	f.set("2", func(s *huego.State) { s.On = true })
	p, lights, _ := newTestPoller(f)
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
		{"brightness the spec does not set", func() { f.set("2", func(s *huego.State) { s.Bri = 3 }) }, nil},
		{"hallway switched off in the app", func() { f.set("1", func(s *huego.State) { s.On = false }) }, []string{"entrance/hall"}},
		{"kitchen unreachable", func() {
			f.set("1", func(s *huego.State) { s.On = true })
			f.set("2", func(s *huego.State) { s.Reachable = false })
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

func TestPollerWakesEveryoneWhenTheBridgeComesAndGoes(t *testing.T) {
	f := newFakeBridge("hallway")
	p, lights, bridges := newTestPoller(f)
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
	if _, err := p.Snapshot(ctx); !isNetwork(err) {
		t.Fatalf("Snapshot while offline: %v", err)
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

func TestSnapshotReadsTheCache(t *testing.T) {
	f := newFakeBridge("hallway")
	p, _, _ := newTestPoller(f)
	for range 50 {
		if _, err := p.Snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if gets, _ := f.calls(); gets != 1 {
		t.Fatalf("50 observations made %d GETs, want 1", gets)
	}
	p.Applied(StateBody{On: ptr.To(true), Bri: ptr.To(9)}, "1")
	lights, _ := p.Snapshot(context.Background())
	if l := lights["1"]; !l.On || l.Bri != 9 {
		t.Fatalf("cache after Applied: %+v", l)
	}
}

type neterr struct{}

func (neterr) Error() string   { return "connection refused" }
func (neterr) Timeout() bool   { return false }
func (neterr) Temporary() bool { return true }

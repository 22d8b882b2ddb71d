package bridge

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestAReadBackWakesWhatItConfirms: on a bridge without an event stream
// (v1), a command the bridge accepted is read back in one read of the
// lights, though the poll interval (an hour here) is far off; the read
// that shows it wakes the HueLight, which then writes its status once
// (issue 28 item 1). A bridge that shows values on the way during the
// transition (Foddy/node-red-contrib-huemagic#25) is read again once the
// transition is over: the read during it contradicts nothing, the one
// after it decides. A command the bridge refused entirely asks for no read.
func TestAReadBackWakesWhatItConfirms(t *testing.T) {
	cases := []struct {
		name string
		// during is what the bulb shows during the transition, after what
		// it shows once the first read-back was made.
		during, after int
		wantReads     int
		wantBri       int
		wantConfirmed bool
	}{
		{"the bridge shows the end value at once", 200, 200, 1, 200, true},
		{"values on the way, then the end value", 120, 200, 2, 200, true},
		{"still not shown after the transition", 120, 120, 2, 120, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			f := fakebridge.NewFakeBridge("hallway", "porch")
			s, lights, _ := newTestSession(f, 10)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g.Expect(s.Poll(ctx)).To(Succeed())
			s.start(ctx) // its first poll finds the read above fresh: no read
			hall := types.NamespacedName{Namespace: "entrance", Name: "hall"}
			s.Settle(hall, Settling{Want: &Want{LightID: "1", Desired: model.Desired{On: true, Bri: ptr.To(200)}, Reachable: true}})
			gets, _ := f.Calls()

			body := model.StateBody{On: ptr.To(true), Bri: ptr.To(200), TransitionTime: ptr.To(5)} // 0.5 s
			sent, _, err := s.Send(ctx, Change{Key: hall, LightID: "1", Body: body, Full: body, Generation: 1}, time.Second)
			g.Expect(sent, err).To(BeTrue())
			f.Set("1", func(st *model.LightState) { st.On, st.Bri = true, ptr.To(c.during) })
			// The sender's wake-up for the command it sent, which may come
			// just after Send returns.
			g.Eventually(func() []string { return drain(lights) }, 5*time.Second, 10*time.Millisecond).
				Should(ContainElement(hall.String()))
			g.Eventually(func() int { n, _ := f.Calls(); return n - gets }, 5*time.Second, 10*time.Millisecond).
				Should(BeNumerically(">=", 1), "a read back, long before the poll")
			f.Set("1", func(st *model.LightState) { st.Bri = ptr.To(c.after) })
			if c.wantReads > 1 {
				v, _ := s.cache.view("1")
				g.Expect(v.Unconfirmed).To(BeTrue(), "a read during the transition decides nothing")
				g.Expect(*v.State.Bri).To(Equal(200), "a read during the transition contradicts nothing")
			}

			g.Eventually(func() []string { return drain(lights) }, 5*time.Second, 10*time.Millisecond).
				Should(ContainElement(hall.String()), "the read that decides wakes the HueLight")
			n, _ := f.Calls()
			g.Expect(n - gets).To(Equal(c.wantReads))
			v, _ := s.cache.view("1")
			g.Expect(*v.State.Bri).To(Equal(c.wantBri))
			g.Expect(v.Unconfirmed).To(BeFalse())
			g.Expect(v.Confirmed > 0).To(Equal(c.wantConfirmed))

			// Refused entirely: nothing to read back.
			g.Eventually(func() bool { _, ok := s.cache.readBackDue(); return ok }, 5*time.Second, 10*time.Millisecond).Should(BeFalse())
			s.cache.answered(time.Now(), body, wire.Result{Refused: []wire.Refusal{{Param: "bri"}, {Param: "on"}}}, "2")
			_, ok := s.cache.readBackDue()
			g.Expect(ok).To(BeFalse(), "a command the bridge refused asks for no read back")
		})
	}
}

// TestAReadWhileACommandIsOnItsWayOnlyConfirms: a read made after a
// command was sent and before its answer may show the bulb before the
// command (a poll's GET served first) or after it (a CLIP v2 event that
// beat the answer). The first must not count as a read back that
// contradicts the write (the command would be sent again: figure 9's
// second command to a settled bulb); the second confirms it at once.
func TestAReadWhileACommandIsOnItsWayOnlyConfirms(t *testing.T) {
	cases := []struct {
		name          string
		readShows     int
		wantConfirmed bool
	}{
		{"the read shows the bulb before the command", 10, false},
		{"the read shows the command", 200, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fakebridge.NewFakeBridge("hallway")
			s, _, _ := newTestSession(f, 10)
			f.Set("1", func(st *model.LightState) { st.On, st.Bri = true, ptr.To(10) })
			g := NewWithT(t)
			g.Expect(s.Poll(context.Background())).To(Succeed())

			sentAt := time.Now()
			f.Set("1", func(st *model.LightState) { st.Bri = ptr.To(c.readShows) })
			g.Expect(s.Poll(context.Background())).To(Succeed()) // started after sentAt, before the answer
			body := model.StateBody{Bri: ptr.To(200)}
			s.cache.answered(sentAt, body, wire.Result{Accepted: body}, "1")

			v, _ := s.cache.view("1")
			g.Expect(*v.State.Bri).To(Equal(200), "the view shows what the bridge accepted")
			g.Expect(v.Unconfirmed).To(Equal(!c.wantConfirmed))
		})
	}
}

// timedReads records when the lights were read.
type timedReads struct {
	wire.Client
	mu sync.Mutex
	at []time.Time
}

func (c *timedReads) Lights(ctx context.Context) ([]model.Light, error) {
	c.mu.Lock()
	c.at = append(c.at, time.Now())
	c.mu.Unlock()
	return c.Client.Lights(ctx)
}

func (c *timedReads) times() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.at)
}

// TestReadBacksOfCommandsThatKeepComingAreSpaced: commands accepted every
// 20 ms for a second and a half (faster than a bridge takes them) each ask
// for a read back 100 ms later; the bridge is read back all along, but
// never twice within readBackSpacing, so reads stay fewer than the
// commands they confirm.
func TestReadBacksOfCommandsThatKeepComingAreSpaced(t *testing.T) {
	g := NewWithT(t)
	reads := &timedReads{Client: fakebridge.NewFakeBridge("hallway")}
	s, _, _ := newTestSession(reads, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g.Expect(s.Poll(ctx)).To(Succeed())
	s.start(ctx) // its first poll finds the read above fresh: no read
	before := len(reads.times())

	body := model.StateBody{On: ptr.To(true), Bri: ptr.To(100)}
	const burst = 1500 * time.Millisecond
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(burst); time.Now().Before(end); <-tick.C {
		s.cache.answered(time.Now(), body, wire.Result{Accepted: body}, "1")
	}
	g.Eventually(func() bool { _, ok := s.cache.readBackDue(); return ok }, 5*time.Second, 10*time.Millisecond).
		Should(BeFalse(), "the last command is read back too")

	at := reads.times()[before:]
	g.Expect(len(at)).To(BeNumerically(">=", 3), "read back while the commands keep coming, not only after them")
	g.Expect(len(at)).To(BeNumerically("<=", int(burst/readBackSpacing)+2))
	// A read starts a little after the loop's clock says it may (a lock, a
	// busy machine); without the spacing, reads come far closer than this.
	const slack = readBackSpacing / 5
	for i := 1; i < len(at); i++ {
		g.Expect(at[i].Sub(at[i-1])).To(BeNumerically(">=", readBackSpacing-slack), "read %d", i)
	}
}

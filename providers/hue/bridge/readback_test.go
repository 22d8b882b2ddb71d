package bridge

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/providers/hue/wire"
	"github.com/tether-dev/tether/providers/hue/wire/wiretest"
)

// TestAReadBackWakesWhatItConfirms: on a bridge without an event stream
// (v1), a command the bridge accepted is read back once its transition is
// over, in one read of the lights, though the poll interval (an hour here)
// is far off; the read wakes the HueLight whose write it shows, which then
// writes its status once (issue 28 item 1). A command the bridge
// refused entirely asks for no read.
func TestAReadBackWakesWhatItConfirms(t *testing.T) {
	g := NewWithT(t)
	f := wiretest.NewFakeBridge("hallway", "porch")
	s, lights, _ := newTestSession(f, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g.Expect(s.Poll(ctx)).To(Succeed())
	s.start(ctx) // its first poll finds the read above fresh: no read
	hall := types.NamespacedName{Namespace: "entrance", Name: "hall"}
	want := wire.Desired{On: true, Bri: ptr.To(200)}
	s.Watch(hall, Want{LightID: "1", Desired: want, Reachable: true})
	drain(lights)
	gets, _ := f.Calls()

	// A transition of 0.5 s: the read back comes after it.
	body := wire.StateBody{On: ptr.To(true), Bri: ptr.To(200), TransitionTime: ptr.To(5)}
	sentAt := time.Now()
	sent, err := s.Send(ctx, Change{Key: hall, LightID: "1", Body: body, Full: body, Generation: 1}, time.Second)
	g.Expect(sent, err).To(BeTrue())
	f.Set("1", func(st *wire.LightState) { st.On, st.Bri = true, ptr.To(200) }) // the bulb shows it
	v, _ := s.View("1")
	g.Expect(v.Unconfirmed).To(BeTrue(), "before a read, the write rests on the bridge's answer")
	drain(lights) // the sender's wake-up for the command it sent

	var wokenAt time.Time
	g.Eventually(func() bool {
		if slices.Contains(drain(lights), hall.String()) {
			wokenAt = time.Now()
			return true
		}
		return false
	}, 5*time.Second, 10*time.Millisecond).Should(BeTrue(), "the read back wakes the HueLight it confirms")
	g.Expect(wokenAt.Sub(sentAt)).To(BeNumerically(">=", 500*time.Millisecond), "read back only after the transition")
	now, _ := f.Calls()
	g.Expect(now-gets).To(Equal(1), "one read of the lights for the read back")
	v, _ = s.View("1")
	g.Expect(v.Unconfirmed).To(BeFalse(), "the read confirmed the write")

	// Refused entirely: nothing to read back.
	_, ok := s.cache.readBackDue()
	g.Expect(ok).To(BeFalse())
	s.cache.answered(time.Now(), body, wire.Result{Refused: []wire.Refusal{{Param: "bri"}, {Param: "on"}}}, "2")
	_, ok = s.cache.readBackDue()
	g.Expect(ok).To(BeFalse(), "a command the bridge refused asks for no read back")
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
			f := wiretest.NewFakeBridge("hallway")
			s, _, _ := newTestSession(f, 10)
			f.Set("1", func(st *wire.LightState) { st.On, st.Bri = true, ptr.To(10) })
			g := NewWithT(t)
			g.Expect(s.Poll(context.Background())).To(Succeed())

			sentAt := time.Now()
			f.Set("1", func(st *wire.LightState) { st.Bri = ptr.To(c.readShows) })
			g.Expect(s.Poll(context.Background())).To(Succeed()) // started after sentAt, before the answer
			body := wire.StateBody{Bri: ptr.To(200)}
			s.cache.answered(sentAt, body, wire.Result{Accepted: body}, "1")

			v, _ := s.View("1")
			g.Expect(*v.State.Bri).To(Equal(200), "the view shows what the bridge accepted")
			g.Expect(v.Unconfirmed).To(Equal(!c.wantConfirmed))
		})
	}
}

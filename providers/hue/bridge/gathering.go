package bridge

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Gathering: HueLights changed together (one kubectl apply, drift seen by
// one read) reach the sender one reconcile after the other; a light
// command for the first would leave the rest in a line too short to
// batch. So the session is told which HueLights are about to send
// (Expect: the informer saw their spec change, with its generation; or a
// read saw their bulb drift) and, while those keep arriving, the light
// line waits for them and they go as one temporary scene. An expected
// HueLight that needs nothing (or waits for something else) counts as
// arrived; one whose reconcile of that generation came first (informer
// handlers run apart) is not expected. When the last expected HueLight of
// a burst (two or more) has arrived, the line waits gatherLinger more for
// the rest of the burst to be seen. Arrivals that stop for gatherIdle, or
// a gathering longer than gatherMax, end the wait: a lost expectation
// costs at most that. A change alone (nothing else expected) goes at once.
const (
	gatherIdle   = time.Second
	gatherLinger = 100 * time.Millisecond
	gatherMax    = 5 * time.Second
)

// gathering is the HueLights the line waits for. It only keeps count: the
// sender asks it, under its lock, whether to hold the line.
type gathering struct {
	// expected are the HueLights about to hand a command over, with the
	// generation they will (0: any); arrivedGen the generation each last
	// arrived with.
	expected   map[types.NamespacedName]int64
	arrivedGen map[types.NamespacedName]int64
	// since is when the current gathering began, progress the last
	// expectation or arrival, burst how many it expected.
	since, progress time.Time
	burst           int
}

// expect records a HueLight about to send for generation gen; ongoing
// says whether a gathering holds the line now (else this one begins one).
func (g *gathering) expect(key types.NamespacedName, gen int64, now time.Time, ongoing bool) {
	if g.expected == nil {
		g.expected = map[types.NamespacedName]int64{}
	}
	if !ongoing {
		g.since, g.burst = now, 0
	}
	g.expected[key] = gen
	g.burst++
	g.progress = now
}

// arrivedWith reports whether the HueLight already arrived with
// generation gen (or a later one).
func (g *gathering) arrivedWith(key types.NamespacedName, gen int64) bool {
	return g.arrivedGen[key] >= gen
}

// arrived records that a HueLight handed its command for generation gen
// over, or needs none; last is true when it was the last one expected.
func (g *gathering) arrived(key types.NamespacedName, gen int64, now time.Time) (last bool) {
	if g.arrivedGen == nil {
		g.arrivedGen = map[types.NamespacedName]int64{}
	}
	g.arrivedGen[key] = max(g.arrivedGen[key], gen)
	want, ok := g.expected[key]
	if !ok || want > gen {
		return false
	}
	delete(g.expected, key)
	g.progress = now
	return len(g.expected) == 0
}

// forget drops what is known of a HueLight that is gone.
func (g *gathering) forget(key types.NamespacedName) {
	delete(g.expected, key)
	delete(g.arrivedGen, key)
}

// holds reports whether the line waits for expected HueLights now: while
// they keep arriving, or lingering after a burst, until end (gatherMax
// after the gathering or the oldest order in line began) and only while
// temporary scenes may be used. It forgets the expectations once it does
// not hold.
func (g *gathering) holds(now, end time.Time, usable bool) bool {
	waiting := len(g.expected) > 0 && now.Sub(g.progress) < gatherIdle
	lingering := len(g.expected) == 0 && g.burst > 1 && now.Sub(g.progress) < gatherLinger
	if (waiting || lingering) && now.Before(end) && usable {
		return true
	}
	g.reset()
	g.burst = 0
	return false
}

// left is how long the gathering may still hold the line, until end at
// the latest.
func (g *gathering) left(now, end time.Time) time.Duration {
	idle := gatherIdle
	if len(g.expected) == 0 {
		idle = gatherLinger
	}
	return min(g.progress.Add(idle).Sub(now), end.Sub(now))
}

// end is when a gathering must end at the latest: gatherMax after it began
// or after the oldest order in line was queued.
func (g *gathering) end(oldestQueued time.Time, anyQueued bool) time.Time {
	end := g.since.Add(gatherMax)
	if anyQueued && oldestQueued.Add(gatherMax).Before(end) {
		end = oldestQueued.Add(gatherMax)
	}
	return end
}

// reset forgets the expectations: temporary scenes stopped.
func (g *gathering) reset() { clear(g.expected) }

package bridge

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// What goes as one group command instead of light commands (a batch), and
// when the line waits for HueLights about to join it: the choice between
// group 0, a temporary scene (tempscenes.go) and a temporary group
// (tempgroups.go), made under the sender's lock; below, the gathering of
// the HueLights about to join.

// chooseLocked picks what one group command sends: the largest set of
// queued orders that want one state, through group 0 when that changes no
// other bulb; else a temporary scene of the line when scenes may be used
// (not while HueLights expected to join the line are still arriving,
// unless the scene is full anyway); else a temporary group when the line
// is long enough for one to pay.
func (s *sender) chooseLocked() *batch {
	now := time.Now()
	if now.Before(s.tempGroups.refusedUntil) {
		return nil
	}
	if s.gatheringLocked(now) && s.line.len() < tempSceneMax {
		return nil
	}
	best := s.line.largestSameState()
	if len(best) < minGroupSize {
		if s.scenesUsableLocked(now) {
			return s.sceneBatchLocked()
		}
		return nil
	}
	full := best[0].full
	inBatch := make(map[string]bool, len(best))
	for _, o := range best {
		inBatch[o.lightID] = true
	}
	if s.groupZeroIsSafe(full, inBatch) {
		return &batch{groupZero: true, full: full, orders: best}
	}
	if s.scenesUsableLocked(now) {
		return s.sceneBatchLocked()
	}
	if time.Now().Before(s.tempGroups.pausedUntil) || !s.lineOutlastsTempGroupLocked() || !s.temporariesUsable() {
		return nil
	}
	return &batch{full: full, orders: best}
}

// held reports whether the line is held for expected HueLights, and for
// how long at most. A gathering that ended since the loop last looked
// leaves a batch to send: look again at once, as the light loop leaves
// that batch to this one and nothing else may wake it.
func (s *sender) held() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if !s.gatheringLocked(now) {
		return 0, s.chooseLocked() != nil
	}
	return s.gatherLeftLocked(now), true
}

func (s *sender) hasBatch() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chooseLocked() != nil
}

// claimBatch takes the chosen orders out of the light line.
func (s *sender) claimBatch() *batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.chooseLocked()
	if b == nil {
		return nil
	}
	for _, o := range b.orders {
		s.line.remove(o)
		s.inFlight[o.key] = o
	}
	kick(s.lightKick) // the rest of the line is the light loop's
	return b
}

// sendBatch sends one batch: a temporary scene, or a group command.
func (s *sender) sendBatch(ctx context.Context, b *batch) {
	if b.scene { // in a temporary zone on a bridge without v1
		s.sendScene(ctx, b)
		return
	}
	if !b.groupZero && !s.temporariesUsable() { // the bridge showed it has no v1 since the batch was chosen
		s.giveBack(b.orders)
		return
	}
	s.sendGroupBatch(ctx, b)
}

// drifted takes the HueLights a read saw drift, and returns those to wake:
// each is about to hand a command over, whatever its generation, and is
// expected. One whose command is already in line or being sent is not: its
// bulb drifts because that command has not gone out yet, and it is woken
// when it goes. Woken at every read, each HueLight in a line of 500 made
// about 70 passes that found its command still in line (the bench's figure
// 2); expected at every read, it would hold the line for as long as reads
// come faster than gatherIdle.
func (s *sender) drifted(keys []types.NamespacedName) []types.NamespacedName {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []types.NamespacedName
	for _, k := range keys {
		_, queued := s.line.get(k)
		_, sending := s.inFlight[k]
		if !queued && !sending {
			s.expectLocked(k, 0)
			out = append(out, k)
		}
	}
	return out
}

// expectGeneration records a HueLight about to hand over a command for
// generation gen, unless it already arrived with it.
func (s *sender) expectGeneration(key types.NamespacedName, gen int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.gather.arrivedWith(key, gen) {
		s.expectLocked(key, gen)
	}
}

func (s *sender) expectLocked(key types.NamespacedName, gen int64) {
	now := time.Now()
	if !s.scenesPossibleLocked(now) {
		return
	}
	s.gatheringLocked(now) // forgets a gathering that is over
	s.gather.expect(key, gen, now)
}

// joinLocked counts a new command in line for generation gen toward the
// burst, when no expectation announced it.
func (s *sender) joinLocked(key types.NamespacedName, gen int64) {
	now := time.Now()
	if s.gather.isExpected(key, gen) || !s.scenesPossibleLocked(now) {
		return
	}
	s.gatheringLocked(now) // forgets a gathering that is over
	s.gather.joined(key, now)
}

// gatheringLocked reports whether the line is held for expected HueLights.
// Gatherings may follow one another, but none holds an order queued more
// than gatherMax ago: the line moves whatever keeps being expected.
func (s *sender) gatheringLocked(now time.Time) bool {
	return s.gather.holds(now, s.gatherEndLocked(), s.scenesPossibleLocked(now), s.cache.bulbs())
}

// heldLocked is the namespaces whose orders the line holds now: those
// with a burst in a gathering going on; nil when none is.
func (s *sender) heldLocked(now time.Time) func(ns string) bool {
	if !s.gatheringLocked(now) {
		return nil
	}
	return s.gather.holdsNamespace
}

func (s *sender) gatherLeftLocked(now time.Time) time.Duration {
	return s.gather.left(now, s.gatherEndLocked())
}

func (s *sender) gatherEndLocked() time.Time {
	oldest, any := s.line.oldest()
	return s.gather.end(oldest, any)
}

// Gathering: HueLights changed together (one kubectl apply, drift seen by
// one read) reach the sender one reconcile after the other; a light
// command for the first would leave the rest in a line too short to
// batch. So the session is told which HueLights are about to send
// (Expect: the informer saw their spec change, with its generation; or a
// read saw their bulb drift) and, while those keep arriving, the light
// line waits for them and they go as one temporary scene. An expected
// HueLight that needs nothing (or waits for something else) counts as
// arrived; one whose reconcile of that generation came first (informer
// handlers run apart) is not expected, but its command joins the burst.
// When the last expected HueLight of a burst (two or more) has arrived,
// the line lingers for the rest of the burst to be seen. Arrivals that
// stop for gatherIdle, or a gathering longer than gatherMax, end the wait:
// a lost expectation costs at most that. A change alone (nothing else
// expected) goes at once; one more within the linger makes a burst.
const (
	gatherIdle = time.Second
	gatherMax  = 5 * time.Second
)

// The linger follows the pace the burst is seen at: gatherLinger, or
// lingerPerGap times the longest gap between two of its HueLights being
// seen (expected or joined), up to gatherLingerMax. An API server that is
// busy (or a client applying over a slow link) delivers a burst in
// chunks; a linger shorter than the gap between two splits the burst into
// two scenes, and the second waits a whole group slot (a second) for its
// recall. On an idle cluster a burst is seen within milliseconds and the
// linger stays gatherLinger.
const (
	gatherLinger    = 100 * time.Millisecond
	gatherLingerMax = 500 * time.Millisecond
	lingerPerGap    = 3
)

// gathering is the HueLights the line waits for. It only keeps count: the
// sender asks it, under its lock, whether to hold the line.
type gathering struct {
	// expected are the HueLights about to hand a command over, with the
	// generation they will (0: any); arrivedGen the generation each last
	// arrived with.
	expected   map[types.NamespacedName]int64
	arrivedGen map[types.NamespacedName]int64
	// since is when the current gathering began, progress its last
	// expectation, arrival or join, seen its last expectation or join,
	// burst how many HueLights it counted (0: none is going on) and
	// widestGap the longest time between two of them being seen.
	since, progress, seen time.Time
	burst                 int
	widestGap             time.Duration
	// members are the HueLights the burst counted, perNamespace how many
	// of them each namespace has.
	members      map[types.NamespacedName]bool
	perNamespace map[string]int
}

// expect records a HueLight about to send for generation gen.
func (g *gathering) expect(key types.NamespacedName, gen int64, now time.Time) {
	if g.expected == nil {
		g.expected = map[types.NamespacedName]int64{}
	}
	g.expected[key] = gen
	g.count(key, now)
}

// joined records a HueLight that handed a new command over unexpected:
// its reconcile ran before the informer's handler told the session (they
// run apart). It counts toward the burst as an expected HueLight that
// arrived at once would.
func (g *gathering) joined(key types.NamespacedName, now time.Time) { g.count(key, now) }

// count adds a HueLight seen now to the burst, beginning one when none is
// going on.
func (g *gathering) count(key types.NamespacedName, now time.Time) {
	if g.burst == 0 {
		g.since, g.widestGap = now, 0
		clear(g.members)
		clear(g.perNamespace)
	} else {
		g.widestGap = max(g.widestGap, now.Sub(g.seen))
	}
	if g.members == nil {
		g.members, g.perNamespace = map[types.NamespacedName]bool{}, map[string]int{}
	}
	if !g.members[key] {
		g.members[key] = true
		g.perNamespace[key.Namespace]++
	}
	g.burst++
	g.progress, g.seen = now, now
}

// holdsNamespace reports whether the gathering holds the orders of
// namespace ns: only those of a namespace with a burst of its own in it.
func (g *gathering) holdsNamespace(ns string) bool { return g.perNamespace[ns] >= minBurst }

// minBurst is how many HueLights make a burst: one alone goes at once.
const minBurst = 2

// linger is how long the line waits after the last expected HueLight of
// the burst arrived: longer when the burst is seen in chunks.
func (g *gathering) linger() time.Duration {
	return min(max(gatherLinger, lingerPerGap*g.widestGap), gatherLingerMax)
}

// isExpected reports whether the HueLight is expected with generation gen
// or an earlier one.
func (g *gathering) isExpected(key types.NamespacedName, gen int64) bool {
	want, ok := g.expected[key]
	return ok && want <= gen
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
	if !g.isExpected(key, gen) {
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
// temporary scenes may be used. A change alone is not held, but the
// gathering it began goes on for the linger: a second change within it
// makes the two a burst. A burst that counted as many HueLights as the
// bridge has bulbs (0: none read yet) lingers no more: no other can join
// it. Once the gathering is over it forgets it.
func (g *gathering) holds(now, end time.Time, usable bool, bulbs int) bool {
	quiet := now.Sub(g.progress)
	waiting := len(g.expected) > 0 && quiet < gatherIdle
	lingering := len(g.expected) == 0 && g.burst > 0 && quiet < g.linger()
	if (waiting || lingering) && now.Before(end) && usable {
		return waiting || (g.burst >= minBurst && (bulbs == 0 || len(g.members) < bulbs))
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
		idle = g.linger()
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

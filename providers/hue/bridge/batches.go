package bridge

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// What goes as one group command instead of light commands (a batch), and
// when the line waits for HueLights about to join it: the choice between
// group 0, a temporary scene (tempscenes.go) and a temporary group
// (tempgroups.go), made under the sender's lock.

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
	if time.Now().Before(s.tempGroups.pausedUntil) || time.Duration(s.line.len())*s.interval < tempGroupCost || !s.temporariesUsable() {
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

// expect records HueLights about to hand a command over, whatever their
// generation (a read saw their bulbs drift). One whose command is already
// in line or being sent is not about to: its bulb drifts because that
// command has not gone out yet, and expecting it again at every read would
// hold the line for as long as reads come faster than gatherIdle.
func (s *sender) expect(keys []types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		_, queued := s.line.get(k)
		_, sending := s.inFlight[k]
		if !queued && !sending {
			s.expectLocked(k, 0)
		}
	}
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
	if !s.scenesUsableLocked(now) {
		return
	}
	s.gatheringLocked(now) // forgets a gathering that is over
	s.gather.expect(key, gen, now)
}

// joinLocked counts a new command in line for generation gen toward the
// burst, when no expectation announced it.
func (s *sender) joinLocked(key types.NamespacedName, gen int64) {
	now := time.Now()
	if s.gather.isExpected(key, gen) || !s.scenesUsableLocked(now) {
		return
	}
	s.gatheringLocked(now) // forgets a gathering that is over
	s.gather.joined(key, now)
}

// gatheringLocked reports whether the line is held for expected HueLights.
// Gatherings may follow one another, but none holds an order queued more
// than gatherMax ago: the line moves whatever keeps being expected.
func (s *sender) gatheringLocked(now time.Time) bool {
	return s.gather.holds(now, s.gatherEndLocked(), s.scenesUsableLocked(now), s.cache.bulbs())
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

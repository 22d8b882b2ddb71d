package hue

import (
	"context"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Temporary scenes: a bridge takes about 10 light commands a second, so 50
// lights that each want a state of their own take 5 s one by one. A v1
// scene stores a state per light and is recalled with one group command;
// when enough HueLights of a bridge are in line, the sender stores their
// states as a temporary scene (tempScenePrefix), recalls it on group 0 and
// deletes it: 50 distinct states in three requests. Leftovers of a crash
// are deleted when the sender starts, as temporary groups are. A scene the
// bridge will not store (its 200 scenes or 2048 lightstates are used up:
// error 402) sends the lights back to light commands, and scenes are not
// tried again for tempGroupPause.
//
// Gathering: HueLights changed together (one kubectl apply, drift seen by
// one read) reach the sender one reconcile after the other; a light command
// for the first would leave the rest in a line too short to batch. So the
// session is told which HueLights are about to send (expect: the informer
// saw their spec change, with its generation, or a read saw their bulb
// drift) and, while those keep arriving, the light line waits for them and
// they go as one scene. An expected HueLight that needs nothing (or waits
// for something else) counts as arrived; one whose reconcile of that
// generation came first (informer handlers run apart) is not expected. When
// the last expected HueLight of a burst (two or more) has arrived, the line
// waits gatherLinger more for the rest of the burst to be seen. Arrivals
// that stop for gatherIdle, or a gathering longer than gatherMax, end the
// wait: a lost expectation costs at most that. A change alone (nothing
// else expected) goes at once.
const (
	// minSceneSize: a temporary scene takes three requests (store,
	// recall, delete); fewer lights go light by light.
	minSceneSize = 4
	// tempSceneMax is the most lights one temporary scene carries: the
	// most lights a bridge holds (50), well within its 2048 lightstates.
	tempSceneMax = 50
	// tempScenePrefix names temporary scenes, so that those a crash left
	// can be told from the user's and removed (HueScenes may not use it).
	tempScenePrefix = "tether-temporary-"
	gatherIdle      = time.Second
	gatherLinger    = 100 * time.Millisecond
	gatherMax       = 5 * time.Second
)

// sceneState is the sender's state for temporary scenes; guarded by the
// sender's mu.
type sceneState struct {
	enabled     bool
	pausedUntil time.Time // after the bridge refused a scene
	leftovers   []string  // temporary scenes whose deletion failed
	// expected are the HueLights about to hand a command over, with the
	// generation they will (0: any); arrivedGen the generation each last
	// arrived with.
	expected   map[types.NamespacedName]int64
	arrivedGen map[types.NamespacedName]int64
	// gatherSince is when the current gathering began, progress the last
	// expectation or arrival, burst how many it expected.
	gatherSince, progress time.Time
	burst                 int
}

// setTemporaryScenes turns temporary scenes (and gathering) on or off.
func (s *sender) setTemporaryScenes(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc.enabled = on
}

func (s *sender) temporaryScenes() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sc.enabled
}

// scenesUsableLocked reports whether a temporary scene may be tried now.
func (s *sender) scenesUsableLocked(now time.Time) bool {
	if !s.sc.enabled || now.Before(s.sc.pausedUntil) {
		return false
	}
	_, ok := wire.RoomsOf(s.deps.client())
	return ok
}

// expect records HueLights about to hand a command over, whatever their
// generation (a read saw their bulbs drift). One whose command is already
// in line or being sent is not about to: its bulb drifts because that
// command has not gone out yet, and waiting for it again at every read
// held the line for good while reads came faster than gatherIdle.
func (s *sender) expect(keys []types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		_, queued := s.queued[k]
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
	if s.sc.arrivedGen[key] < gen {
		s.expectLocked(key, gen)
	}
}

func (s *sender) expectLocked(key types.NamespacedName, gen int64) {
	now := time.Now()
	if !s.scenesUsableLocked(now) {
		return
	}
	if s.sc.expected == nil {
		s.sc.expected = map[types.NamespacedName]int64{}
	}
	if !s.gatheringLocked(now) {
		s.sc.gatherSince, s.sc.burst = now, 0
	}
	s.sc.expected[key] = gen
	s.sc.burst++
	s.sc.progress = now
}

// arrived records that a HueLight handed its command for generation gen
// over or needs none; the sender's loops look again when it was the last
// expected.
func (s *sender) arrived(key types.NamespacedName, gen int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrivedLocked(key, gen)
}

func (s *sender) arrivedLocked(key types.NamespacedName, gen int64) {
	if s.sc.arrivedGen == nil {
		s.sc.arrivedGen = map[types.NamespacedName]int64{}
	}
	s.sc.arrivedGen[key] = max(s.sc.arrivedGen[key], gen)
	want, ok := s.sc.expected[key]
	if !ok || want > gen {
		return
	}
	delete(s.sc.expected, key)
	s.sc.progress = time.Now()
	if len(s.sc.expected) == 0 {
		kick(s.lightKick)
		kick(s.groupKick)
	}
}

// forgetArrivals drops what is known of a HueLight that is gone.
func (s *sender) forgetArrivals(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sc.expected, key)
	delete(s.sc.arrivedGen, key)
}

// gatheringLocked reports whether the line is held for expected HueLights,
// and forgets the expectations once it is not. Gatherings may follow one
// another, but none holds an order queued more than gatherMax ago: the
// line moves whatever keeps being expected.
func (s *sender) gatheringLocked(now time.Time) bool {
	waiting := len(s.sc.expected) > 0 && now.Sub(s.sc.progress) < gatherIdle
	lingering := len(s.sc.expected) == 0 && s.sc.burst > 1 && now.Sub(s.sc.progress) < gatherLinger
	if (waiting || lingering) && now.Before(s.gatherEndLocked()) && s.scenesUsableLocked(now) {
		return true
	}
	clear(s.sc.expected)
	s.sc.burst = 0
	return false
}

// gatherEndLocked is when the current gathering must end at the latest:
// gatherMax after it began or after the oldest order in line was queued.
func (s *sender) gatherEndLocked() time.Time {
	end := s.sc.gatherSince.Add(gatherMax)
	for _, q := range s.queues {
		// A line's head is its oldest order (orders given back return
		// to the head).
		if len(q) > 0 && q[0].queuedAt.Add(gatherMax).Before(end) {
			end = q[0].queuedAt.Add(gatherMax)
		}
	}
	return end
}

// gatherLeft is how long the current gathering may still hold the line.
func (s *sender) gatherLeft(now time.Time) time.Duration {
	idle := gatherIdle
	if len(s.sc.expected) == 0 {
		idle = gatherLinger
	}
	return min(s.sc.progress.Add(idle).Sub(now), s.gatherEndLocked().Sub(now))
}

// takeFairLocked takes up to n queued orders, one light each, namespaces
// in turn from the one whose turn it is.
func (s *sender) takeFairLocked(n int) []*order {
	var out []*order
	seen := map[string]bool{}
	next := map[string]int{}
	for len(out) < n {
		took := false
		for i := range s.ring {
			ns := s.ring[(s.turn+i)%len(s.ring)]
			q := s.queues[ns]
			for next[ns] < len(q) {
				o := q[next[ns]]
				next[ns]++
				if !seen[o.lightID] {
					seen[o.lightID] = true
					out = append(out, o)
					took = true
					break
				}
			}
			if len(out) == n {
				break
			}
		}
		if !took {
			break
		}
	}
	return out
}

// sendScene stores the orders' states as a temporary scene, recalls it on
// group 0 and deletes it. The store and the deletion are paced like light
// commands (the bridge writes a lightstate per light); the recall is the
// group command.
func (s *sender) sendScene(ctx context.Context, b *batch) {
	rc, ok := wire.RoomsOf(s.deps.client())
	if !ok || s.lights.Wait(ctx) != nil {
		s.giveBack(b.orders)
		return
	}
	states := make(map[string]wire.StateBody, len(b.orders))
	for _, o := range b.orders {
		states[o.lightID] = o.full
	}
	name := tempScenePrefix + strconv.FormatInt(time.Now().UnixNano(), 36)
	id, err := rc.CreateScene(ctx, wire.SceneSpec{Name: name, States: states})
	s.deps.unanswered(err)
	if err != nil {
		s.pauseScenes("cannot store a temporary scene; sending light commands", err)
		s.giveBack(b.orders)
		return
	}
	// Deleted even if the session stops meanwhile: nothing else would.
	defer s.deleteScene(context.WithoutCancel(ctx), id)
	// The recall takes the group slot runGroups waited for.
	if err := rc.RecallScene(ctx, id, "0", nil); err != nil {
		s.deps.unanswered(err)
		s.pauseScenes("the bridge refused to recall a temporary scene; sending light commands", err)
		s.giveBack(b.orders)
		return
	}
	for _, o := range b.orders {
		s.deps.answered(o.full, wire.Result{Accepted: o.full}, o.lightID)
	}
	s.finish(b.orders, nil)
}

// pauseScenes stops temporary scenes for tempGroupPause after a refusal.
func (s *sender) pauseScenes(msg string, err error) {
	s.deps.log.Info(msg, "error", err.Error())
	s.mu.Lock()
	s.sc.pausedUntil = time.Now().Add(tempGroupPause)
	clear(s.sc.expected)
	s.mu.Unlock()
}

// deleteScene removes a temporary scene, paced like a light command; one
// that cannot be removed now is retried later: once the bridge answers
// again when it does not now.
func (s *sender) deleteScene(ctx context.Context, id string) {
	rc, ok := wire.RoomsOf(s.deps.client())
	if !ok {
		return
	}
	if s.lights.Wait(ctx) != nil {
		return
	}
	if answering, _ := s.deps.answering(); !answering {
		s.keepLeftoverScene(id)
		return
	}
	err := rc.DeleteScene(ctx, id)
	s.deps.unanswered(err)
	if err != nil {
		s.deps.log.Info("cannot delete a temporary scene; will retry", "scene", id, "error", err.Error())
		s.keepLeftoverScene(id)
	}
}

func (s *sender) keepLeftoverScene(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc.leftovers = append(s.sc.leftovers, id)
}

func (s *sender) deleteLeftoverScenes(ctx context.Context) {
	s.mu.Lock()
	ids := s.sc.leftovers
	s.sc.leftovers = nil
	s.mu.Unlock()
	for _, id := range ids {
		s.deleteScene(ctx, id)
	}
}

// removeStaleScenes deletes temporary scenes a crashed Tether left behind.
func (s *sender) removeStaleScenes(ctx context.Context) {
	rc, ok := wire.RoomsOf(s.deps.client())
	if !ok {
		return
	}
	scenes, err := rc.Scenes(ctx)
	if err != nil {
		s.deps.log.V(1).Info("cannot list scenes to remove stale temporary ones", "error", err.Error())
		return
	}
	for _, sc := range scenes {
		if strings.HasPrefix(sc.Name, tempScenePrefix) {
			s.deleteScene(ctx, sc.ID)
		}
	}
}

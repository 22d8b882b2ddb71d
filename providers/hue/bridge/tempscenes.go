package bridge

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Temporary scenes: lights that each want a state of their own would take
// one light slot each. A v1 scene stores a state per light and is recalled
// with one group command; when enough HueLights of a bridge are in line,
// the sender stores their states as a temporary scene (tempScenePrefix),
// recalls it on group 0 and deletes it: any number of distinct states, up
// to tempSceneMax, in three requests. Leftovers of a crash are deleted
// when the sender starts, as temporary groups are. A scene the bridge will
// not store (its scenes or lightstates are used up: error 402) sends the
// lights back to light commands, and scenes are not tried again for
// refusalPause. The line waits for HueLights about to join it
// (gathering.go), so that a burst goes as one scene.
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
)

// scenesUsableLocked reports whether a temporary scene may be tried now.
func (s *sender) scenesUsableLocked(now time.Time) bool {
	if !s.scenes.enabled || now.Before(s.scenes.pausedUntil) || !s.temporariesUsable() {
		return false
	}
	_, ok := wire.RoomsOf(s.client.get())
	return ok
}

// sceneBatchLocked is a temporary scene of the line, when it is long
// enough for one to pay.
func (s *sender) sceneBatchLocked() *batch {
	if s.line.len() < minSceneSize {
		return nil
	}
	orders := s.line.takeFair(tempSceneMax)
	if len(orders) < minSceneSize {
		return nil
	}
	return &batch{scene: true, orders: orders}
}

// sendScene stores the orders' states as a temporary scene, recalls it on
// group 0 and deletes it. The store and the deletion are paced like light
// commands (the bridge writes a lightstate per light); the recall is the
// group command.
func (s *sender) sendScene(ctx context.Context, b *batch) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok || s.lights.Wait(ctx) != nil {
		s.giveBack(b.orders)
		return
	}
	states := make(map[string]model.StateBody, len(b.orders))
	for _, o := range b.orders {
		states[o.lightID] = o.full
	}
	name := tempScenePrefix + strconv.FormatInt(time.Now().UnixNano(), 36)
	id, err := rc.CreateScene(ctx, wire.SceneSpec{Name: name, States: states})
	s.cache.unanswered(err)
	if err != nil {
		s.pauseScenes("cannot store a temporary scene; sending light commands", err)
		s.giveBack(b.orders)
		return
	}
	// Deleted even if the session stops meanwhile: nothing else would.
	defer s.deleteScene(context.WithoutCancel(ctx), id)
	// The recall takes the group slot runGroups waited for.
	sentAt := time.Now()
	if err := rc.RecallScene(ctx, id, "0", nil); err != nil {
		s.cache.unanswered(err)
		s.pauseScenes("the bridge refused to recall a temporary scene; sending light commands", err)
		s.giveBack(b.orders)
		return
	}
	for _, o := range b.orders {
		s.cache.answered(sentAt, o.full, wire.Result{Accepted: o.full}, o.lightID)
	}
	s.finish(b.orders, nil)
}

// pauseScenes stops temporary scenes for refusalPause after a refusal.
func (s *sender) pauseScenes(msg string, err error) {
	s.log.Info(msg, "error", err.Error())
	s.mu.Lock()
	s.scenes.pausedUntil = time.Now().Add(refusalPause)
	s.gather.reset()
	s.mu.Unlock()
}

// deleteScene removes a temporary scene, paced like a light command; one
// that cannot be removed now is retried later: once the bridge answers
// again when it does not now.
func (s *sender) deleteScene(ctx context.Context, id string) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok {
		return
	}
	s.deleteTemporary(ctx, "scene", s.lights, &s.scenes.leftovers, id, rc.DeleteScene)
}

func (s *sender) deleteLeftoverScenes(ctx context.Context) {
	for _, id := range s.takeLeftovers(&s.scenes.leftovers) {
		s.deleteScene(ctx, id)
	}
}

// removeStaleScenes deletes temporary scenes a crashed Tether left behind.
func (s *sender) removeStaleScenes(ctx context.Context) {
	lister, ok := s.client.get().(wire.LightSceneLister) // temporary scenes are v1 scenes
	if !ok {
		return
	}
	scenes, err := lister.LightScenes(ctx)
	if err != nil {
		s.log.V(1).Info("cannot list scenes to remove stale temporary ones", "error", err.Error())
		return
	}
	for _, sc := range scenes {
		if strings.HasPrefix(sc.Name, tempScenePrefix) {
			s.deleteScene(ctx, sc.ID)
		}
	}
}

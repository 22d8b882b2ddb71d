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
// (batches.go), so that a burst goes as one scene.
//
// A bridge without v1 (its firmware answers 404 on the v1 paths) has no
// LightScenes: a CLIP v2 scene belongs to one room or zone (its group is
// required: CLIP v2 API reference, "scene"), and group 0 is not a v2
// resource. There the temporary scene lives in a temporary zone of its
// lights, named as it is: the zone is created (a group slot), the scene
// stored in it, recalled one group slot later and deleted, then the zone.
// Two group slots, as a temporary group takes: it pays only when the line
// is longer than that (tempGroupCost); the line waits for a burst as on a
// v1 bridge (scenesPossibleLocked), so that it can grow that long. The
// zone's deletion takes a third slot, so it waits until no batch of the
// line wants one (retireZone): a
// burst of 150 lights goes as three zones and three recalls, then three
// deletions. Each zone holds its own batch's lights and no other, never
// shared by batches: the bridge rewrites a scene's actions when its
// group's lights change (a scene's last_actions_update.source "autogrow",
// aiohue models/scene.py), and what it does with a scene written for part
// of its group is not documented. The Hue app lists each zone while it
// exists, a few seconds.
const (
	// minSceneSize: a temporary scene takes three requests (store,
	// recall, delete); fewer lights go light by light.
	minSceneSize = 4
	// tempSceneMax is the most lights one temporary scene carries: the
	// most lights a square bridge holds (50), well within its 2048
	// lightstates; a Bridge Pro's 150 go as three (its scene limits are
	// not published).
	tempSceneMax = 50
	// zonesRetiredMax is the most temporary zones left to the group loop
	// to delete (retireZone): a Bridge Pro's lights in scenes of
	// tempSceneMax. Past it the oldest is deleted at once, so that a long
	// stream of batches does not pile zones up in the Hue app.
	zonesRetiredMax = proLights / tempSceneMax
	// proLights is the most lights a bridge holds: a Hue Bridge Pro's 150
	// (docs/hue-bridge.md).
	proLights = 150
	// tempScenePrefix names temporary scenes, so that those a crash left
	// can be told from the user's and removed (HueScenes may not use it).
	tempScenePrefix = "tether-temporary-"
)

// scenesUsableLocked reports whether a temporary scene of the line may be
// tried now: on a bridge without v1, only once the line is long enough for
// its zone to pay.
func (s *sender) scenesUsableLocked(now time.Time) bool {
	return s.scenesPossibleLocked(now) && (s.temporariesUsable() || s.lineOutlastsTempGroupLocked())
}

// scenesPossibleLocked reports whether temporary scenes may be tried at
// all now, however long the line. The gathering (batches.go) asks this,
// not whether a scene pays: on a bridge without v1 that depends on how
// many HueLights the burst brings, known only once they are in line, and
// a burst that arrives slower than the bridge takes light commands would
// otherwise go light by light before the line grew long enough.
func (s *sender) scenesPossibleLocked(now time.Time) bool {
	if !s.scenes.enabled || now.Before(s.scenes.pausedUntil) {
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
// group 0 and deletes it; on a bridge without v1 it first creates the
// temporary zone the scene is stored and recalled in, and retires the zone
// after. The store and the deletion are paced like light commands (the
// bridge writes a lightstate per light); the recall is the group command.
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
	spec, group := wire.SceneSpec{Name: name, States: states}, "0"
	if !s.temporariesUsable() {
		// The zone takes the group slot runGroups waited for; deferred
		// first, it is retired after its scene is deleted.
		zone, ok := s.createZone(ctx, rc, name, b.orders)
		if !ok {
			s.giveBack(b.orders)
			return
		}
		defer s.retireZone(context.WithoutCancel(ctx), zone)
		spec.GroupID, group = zone, zone
	}
	id, err := rc.CreateScene(ctx, spec)
	s.cache.unanswered(err)
	if err != nil {
		s.pauseScenes("cannot store a temporary scene; sending light commands", err)
		s.giveBack(b.orders)
		return
	}
	// Deleted even if the session stops meanwhile: nothing else would.
	defer s.deleteScene(context.WithoutCancel(ctx), id)
	// The recall takes the group slot runGroups waited for, or (after a
	// zone) the next one.
	if spec.GroupID != "" && s.groups.Wait(ctx) != nil {
		s.giveBack(b.orders)
		return
	}
	sentAt := time.Now()
	if err := rc.RecallScene(ctx, id, group, nil); err != nil {
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
	for _, id := range s.takeLeftovers(&s.scenes.zones) {
		s.deleteZone(ctx, id)
	}
}

// createZone creates the temporary zone of the orders' lights, on the
// group slot the caller holds; false when the bridge refused it (temporary
// scenes paused, as for a refused scene).
func (s *sender) createZone(ctx context.Context, rc wire.RoomsClient, name string, orders []*order) (string, bool) {
	ids := make([]string, len(orders))
	for i, o := range orders {
		ids[i] = o.lightID
	}
	zone, err := rc.CreateRoom(ctx, wire.GroupSpec{Name: name, Type: wire.GroupZone, LightIDs: ids})
	s.cache.unanswered(err)
	if err != nil {
		s.pauseScenes("cannot create a temporary zone for a temporary scene; sending light commands", err)
		return "", false
	}
	return zone, true
}

// retireZone leaves a temporary zone whose scene is done to the group
// loop, which deletes it once no batch waits for a group slot (runGroups).
// Past zonesRetiredMax the oldest is deleted now.
func (s *sender) retireZone(ctx context.Context, zone string) {
	s.mu.Lock()
	s.scenes.zones = append(s.scenes.zones, zone)
	var oldest string
	if len(s.scenes.zones) > zonesRetiredMax {
		oldest, s.scenes.zones = s.scenes.zones[0], s.scenes.zones[1:]
	}
	s.mu.Unlock()
	if oldest != "" {
		s.deleteZone(ctx, oldest)
	}
}

// deleteZone removes a temporary zone on the group budget; one that cannot
// be removed now is retried later, as a temporary scene is.
func (s *sender) deleteZone(ctx context.Context, id string) {
	s.deleteTemporary(ctx, "zone", s.groups, &s.scenes.zones, id, func(ctx context.Context, id string) error {
		return s.client.get().DeleteGroup(ctx, id) // the client in use once the budget allows
	})
}

// removeStaleScenes deletes temporary scenes a crashed Tether left behind:
// v1 scenes, or on a bridge without v1 the temporary zones and their
// scenes. It runs after removeStaleGroups, whose look tells whether the
// bridge has v1.
func (s *sender) removeStaleScenes(ctx context.Context) {
	if !s.temporariesUsable() {
		s.removeStaleZones(ctx)
		return
	}
	lister, ok := s.client.get().(wire.LightSceneLister) // temporary scenes are v1 scenes
	if !ok {
		return
	}
	s.removeStaleScenesOf(ctx, lister.LightScenes)
}

// removeStaleScenesOf deletes the temporary scenes of a listing; false
// when the bridge would not list them.
func (s *sender) removeStaleScenesOf(ctx context.Context, list func(context.Context) ([]wire.Scene, error)) bool {
	scenes, err := list(ctx)
	if err != nil {
		s.log.V(1).Info("cannot list scenes to remove stale temporary ones", "error", err.Error())
		return false
	}
	for _, sc := range scenes {
		if strings.HasPrefix(sc.Name, tempScenePrefix) {
			s.deleteScene(ctx, sc.ID)
		}
	}
	return true
}

// removeStaleZones deletes, on a bridge without v1, the temporary scenes
// and then the temporary zones a crashed Tether left. HueGroups and
// HueScenes may not take tempScenePrefix, so no name of theirs matches.
func (s *sender) removeStaleZones(ctx context.Context) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok {
		return
	}
	if !s.removeStaleScenesOf(ctx, rc.Scenes) {
		return
	}
	groups, err := rc.ListGroups(ctx)
	if err != nil {
		s.log.V(1).Info("cannot list zones to remove stale temporary ones", "error", err.Error())
		return
	}
	for _, g := range groups {
		if g.Type == wire.GroupZone && strings.HasPrefix(g.Name, tempScenePrefix) {
			s.deleteZone(ctx, g.ID)
		}
	}
}

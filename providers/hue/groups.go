package hue

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Group commands: one PUT /groups/<id>/action sets many lights at once, on
// a budget of its own (about 1/s), so lights that want the same state are
// set together instead of one light slot each. 500 lights dimmed to one
// level take one group command instead of 50 s of light commands.
const (
	// minGroupSize: fewer same-state commands go light by light.
	minGroupSize = 3
	// tempGroupCost is how long a temporary group takes to act (create,
	// then the action one group slot later): it pays only when the light
	// line is longer than that.
	tempGroupCost = 2 * groupSlot
	// tempGroupPrefix names Tether's temporary groups, so that those left
	// by a crash can be told from the user's own and removed.
	tempGroupPrefix = "tether-"
	// tempGroupPause is how long temporary groups are not tried after the
	// bridge refused one (its group table is full, most likely).
	tempGroupPause = time.Minute
)

// batch is queued orders sent as one group command: orders that want one
// state, or a temporary scene of orders that want states of their own.
type batch struct {
	groupZero bool // every light of the bridge wants this state
	scene     bool // a temporary scene (tempscenes.go)
	full      wire.StateBody
	orders    []*order
}

// runGroups sends same-state orders as group commands while the light
// sender goes on with the others.
func (s *sender) runGroups(ctx context.Context) {
	s.removeStaleGroups(ctx)
	s.removeStaleScenes(ctx)
	for {
		var timeout <-chan time.Time
		if left, held := s.held(); held {
			timeout = time.After(left) // look again when gathering ends
		}
		select {
		case <-ctx.Done():
			return
		case <-s.groupKick:
		case <-timeout:
		case <-s.leftoversBack():
		}
		for s.hasGroupOrder() || s.hasBatch() {
			if s.groups.Wait(ctx) != nil || !s.awaitAnswering(ctx) {
				return
			}
			if o := s.takeGroupOrder(); o != nil {
				s.sendGroupOrder(ctx, o)
				continue
			}
			b := s.claimBatch()
			if b == nil {
				break
			}
			s.sendBatch(ctx, b)
		}
		s.deleteLeftovers(ctx)
		s.deleteLeftoverScenes(ctx)
	}
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
	return s.gatherLeft(now), true
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
		s.unqueueLocked(o)
		s.inFlight[o.key] = o
	}
	kick(s.lightKick) // the rest of the line is the light loop's
	return b
}

// chooseLocked picks what one group command sends: the largest set of
// queued orders that want one state, through group 0 when that changes no
// other bulb; else a temporary scene of the line when scenes may be used
// (not while HueLights expected to join the line are still arriving,
// unless the scene is full anyway); else a temporary group when the line
// is long enough for one to pay.
func (s *sender) chooseLocked() *batch {
	now := time.Now()
	if now.Before(s.noGroupsUntil) {
		return nil
	}
	if s.gatheringLocked(now) && len(s.queued) < tempSceneMax {
		return nil
	}
	byState := map[string][]*order{}
	var best []*order
	for _, q := range s.queues {
		for _, o := range q {
			k := o.fullKey
			byState[k] = append(byState[k], o)
			if len(byState[k]) > len(best) {
				best = byState[k]
			}
		}
	}
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
	if time.Now().Before(s.noTempGroupsUntil) || time.Duration(len(s.queued))*s.interval < tempGroupCost {
		return nil
	}
	return &batch{full: full, orders: best}
}

// sceneBatchLocked is a temporary scene of the line, when it is long
// enough for one to pay.
func (s *sender) sceneBatchLocked() *batch {
	if len(s.queued) < minSceneSize {
		return nil
	}
	orders := s.takeFairLocked(tempSceneMax)
	if len(orders) < minSceneSize {
		return nil
	}
	return &batch{scene: true, orders: orders}
}

// unqueueLocked takes o out of its namespace's line.
func (s *sender) unqueueLocked(o *order) {
	delete(s.queued, o.key)
	ns := o.key.Namespace
	s.queues[ns] = slices.DeleteFunc(s.queues[ns], func(q *order) bool { return q == o })
	s.leaveRingIfEmptyLocked(ns)
}

// sendBatch sends one group command; when the bridge refuses it, the
// orders go back to the head of the light line.
func (s *sender) sendBatch(ctx context.Context, b *batch) {
	c := s.deps.client()
	if b.scene {
		s.sendScene(ctx, b)
		return
	}
	if b.groupZero {
		res, err := c.SetGroupState(ctx, "0", b.full)
		s.deps.unanswered(err)
		s.afterGroupAction(b, s.deps.lightIDs(), res, err)
		return
	}
	ids := make([]string, 0, len(b.orders))
	for _, o := range b.orders {
		ids = append(ids, o.lightID)
	}
	id, err := c.CreateGroup(ctx, tempGroupPrefix+strconv.FormatInt(time.Now().UnixNano(), 36), ids)
	s.deps.unanswered(err)
	if err != nil {
		s.deps.log.Info("cannot create a temporary group; sending light commands", "error", err.Error())
		s.mu.Lock()
		s.noTempGroupsUntil = time.Now().Add(tempGroupPause)
		s.mu.Unlock()
		s.giveBack(b.orders)
		return
	}
	// Once the group exists it is deleted even if the session stops
	// meanwhile (HueBridge deleted or rebuilt): nothing else would.
	defer s.deleteGroup(context.WithoutCancel(ctx), id)
	if s.groups.Wait(ctx) != nil {
		s.giveBack(b.orders)
		return
	}
	if answering, _ := s.deps.answering(); !answering {
		s.giveBack(b.orders) // held until the bridge answers again
		return
	}
	res, err := c.SetGroupState(ctx, id, b.full)
	s.deps.unanswered(err)
	s.afterGroupAction(b, ids, res, err)
}

// afterGroupAction records the state of every light of the group, and
// wakes the HueLights that did not wait. A group command the bridge refused
// in whole or in part goes back to light commands, which say per light
// what the bridge refuses.
func (s *sender) afterGroupAction(b *batch, lightIDs []string, res wire.Result, err error) {
	if err == nil {
		err = refusedError(res)
	}
	if err != nil {
		s.deps.log.Info("group command refused; sending light commands", "error", err.Error())
		s.mu.Lock()
		s.noGroupsUntil = time.Now().Add(tempGroupPause)
		s.mu.Unlock()
		s.giveBack(b.orders)
		return
	}
	s.deps.answered(b.full, res, lightIDs...)
	s.finish(b.orders, nil)
}

// giveBack puts orders at the head of their lines, in their order, unless
// the HueLight has queued a newer command since.
func (s *sender) giveBack(orders []*order) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range slices.Backward(orders) {
		if s.inFlight[o.key] == o {
			delete(s.inFlight, o.key)
		}
		if _, newer := s.queued[o.key]; !newer {
			s.pushLocked(o, true)
		}
	}
	kick(s.lightKick)
}

// deleteGroup removes a temporary group; one that cannot be removed now is
// retried later, so the bridge's small group table does not fill up: once
// the bridge answers again when it does not now. The call is bounded by
// the client's own deadline.
func (s *sender) deleteGroup(ctx context.Context, id string) {
	if s.groups.Wait(ctx) != nil {
		return
	}
	if ok, _ := s.deps.answering(); !ok {
		s.keepLeftoverGroup(id)
		return
	}
	err := s.deps.client().DeleteGroup(ctx, id)
	s.deps.unanswered(err)
	if err != nil {
		s.deps.log.Info("cannot delete a temporary group; will retry", "group", id, "error", err.Error())
		s.keepLeftoverGroup(id)
	}
}

func (s *sender) keepLeftoverGroup(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leftoverGroups = append(s.leftoverGroups, id)
}

// leftoversBack is closed when temporary groups or scenes wait to be deleted
// and a read finds the bridge answering again; nil otherwise.
func (s *sender) leftoversBack() <-chan struct{} {
	s.mu.Lock()
	left := len(s.leftoverGroups) + len(s.sc.leftovers)
	s.mu.Unlock()
	if left == 0 {
		return nil
	}
	_, back := s.deps.answering()
	return back
}

func (s *sender) deleteLeftovers(ctx context.Context) {
	s.mu.Lock()
	ids := s.leftoverGroups
	s.leftoverGroups = nil
	s.mu.Unlock()
	for _, id := range ids {
		s.deleteGroup(ctx, id)
	}
}

// removeStaleGroups deletes temporary groups a crashed Tether left behind.
// The listing is a read, not on the group budget; the deletions are.
func (s *sender) removeStaleGroups(ctx context.Context) {
	groups, err := s.temporaryGroupCandidates(ctx)
	if err != nil {
		s.deps.log.V(1).Info("cannot list groups to remove stale temporary ones", "error", err.Error())
		return
	}
	for id, name := range groups {
		if strings.HasPrefix(name, tempGroupPrefix) {
			s.deleteGroup(ctx, id)
		}
	}
}

// temporaryGroupCandidates lists the groups that may be temporary ones, id
// -> name: only light groups when the bridge tells group types (a HueGroup's
// room or zone may have any name).
func (s *sender) temporaryGroupCandidates(ctx context.Context) (map[string]string, error) {
	c := s.deps.client()
	rc, ok := wire.RoomsOf(c)
	if !ok {
		return c.Groups(ctx)
	}
	groups, err := rc.ListGroups(ctx)
	out := map[string]string{}
	for _, g := range groups {
		if g.Type == wire.GroupLight {
			out[g.ID] = g.Name
		}
	}
	return out, err
}

// groupZeroIsSafe reports whether group 0 (every light of the bridge) may
// be set to full for the lights in batch: every other bulb must be held by
// a watching HueLight that wants that very state (it is about to be sent
// anyway). A bulb nobody manages, one that wants another state, and a
// paused HueLight's bulb (pausing drops its watch) all rule group 0 out.
func (s *sender) groupZeroIsSafe(full wire.StateBody, batch map[string]bool) bool {
	ids := s.deps.lightIDs()
	if len(ids) == 0 {
		return false
	}
	want, wanted := full.Key(), s.deps.wanted()
	for _, id := range ids {
		if !batch[id] && wanted[id] != want {
			return false
		}
	}
	return true
}

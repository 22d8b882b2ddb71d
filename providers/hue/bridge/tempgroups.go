package bridge

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Group commands for HueLights: one PUT /groups/<id>/action sets many
// lights at once on the bridge's group budget, so lights that want the
// same state are set together instead of one light slot each: through
// group 0 (every light of the bridge) when that changes no other bulb,
// else through a temporary scene (tempscenes.go, which carries lights that
// want states of their own too), and where temporary scenes are off or
// paused after a refusal, through a temporary group made for them (on a
// bridge that serves v1: chooseLocked).
const (
	// minGroupSize: fewer same-state commands go light by light.
	minGroupSize = 3
	// tempGroupCost is how long a temporary group takes to act (create,
	// then the action one group slot later): it pays only when the light
	// line is longer than that.
	tempGroupCost = 2 * GroupSlot
	// tempGroupPrefix names Tether's temporary groups, so that those left
	// by a crash can be told from the user's own and removed.
	tempGroupPrefix = "tether-"
)

// lineOutlastsTempGroupLocked reports whether the light commands in line
// take at least as long to send as a temporary group or zone takes to act
// (tempGroupCost): only then does one pay.
func (s *sender) lineOutlastsTempGroupLocked() bool {
	return time.Duration(s.line.len())*s.interval >= tempGroupCost
}

// groupZeroIsSafe reports whether group 0 (every light of the bridge) may
// be set to full for the lights in batch: every other bulb must be held by
// a watching HueLight that wants that very state (it is about to be sent
// anyway). A bulb nobody manages, one that wants another state, and a
// paused HueLight's bulb (pausing drops its watch) all rule group 0 out.
func (s *sender) groupZeroIsSafe(full model.StateBody, batch map[string]bool) bool {
	ids := s.cache.lightIDs()
	if len(ids) == 0 {
		return false
	}
	want, wanted := full.Key(), s.cache.wantedBodies()
	for _, id := range ids {
		if !batch[id] && wanted[id] != want {
			return false
		}
	}
	return true
}

// sendGroupBatch sends one group command: through group 0, or through a
// temporary group made for the batch and deleted after. When the bridge
// refuses it, the orders go back to the head of the light line.
func (s *sender) sendGroupBatch(ctx context.Context, b *batch) {
	c := s.client.get()
	if b.groupZero {
		sentAt := time.Now()
		res, err := c.SetGroupState(ctx, "0", b.full)
		s.cache.unanswered(err)
		s.afterGroupAction(b, s.cache.lightIDs(), sentAt, res, err)
		return
	}
	ids := make([]string, 0, len(b.orders))
	for _, o := range b.orders {
		ids = append(ids, o.lightID)
	}
	id, err := c.CreateGroup(ctx, tempGroupPrefix+strconv.FormatInt(time.Now().UnixNano(), 36), ids)
	s.cache.unanswered(err)
	if err != nil {
		s.log.Info("cannot create a temporary group; sending light commands", "error", err.Error())
		s.mu.Lock()
		s.tempGroups.pausedUntil = time.Now().Add(refusalPause)
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
	if answering, _ := s.cache.answering(); !answering {
		s.giveBack(b.orders) // held until the bridge answers again
		return
	}
	sentAt := time.Now()
	res, err := c.SetGroupState(ctx, id, b.full)
	s.cache.unanswered(err)
	s.afterGroupAction(b, ids, sentAt, res, err)
}

// afterGroupAction records the state of every light of the group, and
// wakes the HueLights that did not wait. A group command the bridge refused
// in whole or in part goes back to light commands, which say per light
// what the bridge refuses.
func (s *sender) afterGroupAction(b *batch, lightIDs []string, sentAt time.Time, res wire.Result, err error) {
	if err == nil {
		err = refusedError(res)
	}
	if err != nil {
		s.log.Info("group command refused; sending light commands", "error", err.Error())
		s.mu.Lock()
		s.tempGroups.refusedUntil = time.Now().Add(refusalPause)
		s.mu.Unlock()
		s.giveBack(b.orders)
		return
	}
	s.cache.answered(sentAt, b.full, res, lightIDs...)
	s.finish(b.orders, nil)
}

// deleteGroup removes a temporary group; one that cannot be removed now is
// retried later, so the bridge's small group table does not fill up: once
// the bridge answers again when it does not now. The call is bounded by
// the client's own deadline.
func (s *sender) deleteGroup(ctx context.Context, id string) {
	s.deleteTemporary(ctx, "group", s.groups, &s.tempGroups.leftovers, id, func(ctx context.Context, id string) error {
		return s.client.get().DeleteGroup(ctx, id) // the client in use once the budget allows
	})
}

func (s *sender) deleteLeftoverGroups(ctx context.Context) {
	for _, id := range s.takeLeftovers(&s.tempGroups.leftovers) {
		s.deleteGroup(ctx, id)
	}
}

// removeStaleGroups deletes temporary groups a crashed Tether left behind.
// The listing is a read, not on the group budget; the deletions are.
func (s *sender) removeStaleGroups(ctx context.Context) {
	groups, err := s.temporaryGroupCandidates(ctx)
	if err != nil {
		s.log.V(1).Info("cannot list groups to remove stale temporary ones", "error", err.Error())
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
	c := s.client.get()
	lg, ok := c.(wire.LightGroupLister)
	if !ok {
		return c.Groups(ctx)
	}
	groups, err := lg.LightGroups(ctx)
	out := map[string]string{}
	for _, g := range groups {
		if g.Type == wire.GroupLight {
			out[g.ID] = g.Name
		}
	}
	return out, err
}

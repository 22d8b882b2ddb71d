package bridge

import (
	"context"
	"fmt"
	"time"
)

// The sender's two loops: one spends the light budget on the HueLights'
// line, a command per slot; the other the group budget, on the HueGroups'
// commands first, then on batches of the line.

// run sends until ctx ends (the session stops).
func (s *sender) run(ctx context.Context) {
	go s.runGroups(ctx)
	s.runLights(ctx)
}

// runLights sends one queued command per slot, namespaces in turn.
func (s *sender) runLights(ctx context.Context) {
	for {
		if !s.waitForWork(ctx) || s.lights.Wait(ctx) != nil || !s.awaitAnswering(ctx) {
			return
		}
		o := s.next()
		if o == nil {
			continue // a group command took them
		}
		sentAt := time.Now()
		res, err := s.client.get().SetLightState(ctx, o.lightID, o.body)
		s.cache.unanswered(err)
		if err == nil {
			// What it accepted counts; what it refused is remembered and
			// named in the HueLight's conditions, not an error of the
			// command.
			s.cache.answered(sentAt, o.body, res, o.lightID)
			if len(res.Refused) > 0 {
				s.log.Info("the bridge refused part of a command", "light", o.lightID, "hueLight", o.key.String(),
					"refused", fmt.Sprint(res.Refused))
			}
		}
		s.finish([]*order{o}, err)
	}
}

// waitForWork blocks until a command is queued and the line is not held
// for HueLights about to join it (gathering; only the namespaces with a
// burst in it are held) nor due to go as one group
// command (the group loop takes it at its next slot); false when ctx
// ended.
func (s *sender) waitForWork(ctx context.Context) bool {
	for {
		s.mu.Lock()
		n, now := s.line.len(), time.Now()
		held := s.gatheringLocked(now) && !s.line.anyFree(s.gather.holdsNamespace)
		var left time.Duration
		switch {
		case held:
			left = s.gatherLeftLocked(now)
		case n > 0 && s.chooseLocked() != nil:
			held, left = true, GroupSlot
		}
		s.mu.Unlock()
		if n > 0 && !held {
			return true
		}
		var timeout <-chan time.Time
		if held {
			timeout = time.After(left)
		}
		select {
		case <-ctx.Done():
			return false
		case <-s.lightKick:
		case <-timeout:
		}
	}
}

// runGroups spends the group budget: HueGroups' commands first, then
// batches of the HueLights' line, while the light loop goes on with the
// others.
func (s *sender) runGroups(ctx context.Context) {
	s.removeStaleGroups(ctx)
	s.removeStaleScenes(ctx)
	// The zones retired to this loop, and the leftovers it holds, are
	// deleted even if the session stops: nothing else would, when its
	// HueBridge is gone. (When the whole manager stops, what this cannot
	// finish is deleted by the next start's look for stale ones.) The
	// successor of a session takes its group slots from the same budget
	// (NewGroupBudget).
	defer s.deleteLeftovers(context.WithoutCancel(ctx))
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
	}
}

// deleteLeftovers deletes the temporary groups, scenes and zones that wait
// for it.
func (s *sender) deleteLeftovers(ctx context.Context) {
	s.deleteLeftoverGroups(ctx)
	s.deleteLeftoverScenes(ctx)
}

// leftoversBack is closed when temporary groups or scenes wait to be deleted
// and a read finds the bridge answering again; nil otherwise.
func (s *sender) leftoversBack() <-chan struct{} {
	s.mu.Lock()
	left := len(s.tempGroups.leftovers) + len(s.scenes.leftovers) + len(s.scenes.zones)
	s.mu.Unlock()
	if left == 0 {
		return nil
	}
	_, back := s.cache.answering()
	return back
}

package bridge

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// HueGroups' commands go through the sender's group loop, on the bridge's
// group budget beside the HueLights' batches, and before them: a HueGroup's
// change is one group command by design, a batch only saves light slots.

// sendGroup hands a HueGroup's command over and waits up to maxWait for it
// when it is alone in line and the group slot comes that soon. A command
// nobody waited for whose error was kept is that error, once.
func (s *sender) sendGroup(ctx context.Context, c GroupChange, maxWait time.Duration) (sent bool, err error) {
	s.mu.Lock()
	if err := takeFailureOf(s.groupLine.failed, c.Key, c.FullKey); err != nil {
		s.mu.Unlock()
		return true, err
	}
	o, added := s.groupLine.add(c)
	s.mu.Unlock()
	if added {
		kick(s.groupKick)
	}
	wait := time.Duration(0)
	if s.groupSlotSoon(maxWait) {
		wait = maxWait
	}
	return s.await(ctx, &o.handover, wait)
}

// groupSlotSoon reports whether at most one group command is in line and
// the bridge's next group slot comes within d.
func (s *sender) groupSlotSoon(d time.Duration) bool {
	s.mu.Lock()
	n := s.groupLine.waiting()
	s.mu.Unlock()
	if n > 1 {
		return false
	}
	tokens := s.groups.Tokens()
	return tokens >= 1 || time.Duration((1-tokens)*float64(GroupSlot)) <= d
}

// sendGroupOrder sends one HueGroup command (its group slot taken) and
// records what each light will show.
func (s *sender) sendGroupOrder(ctx context.Context, o *groupOrder) {
	var err error
	c, sentAt := s.client.get(), time.Now()
	if o.SceneID != "" {
		rc, ok := wire.RoomsOf(c)
		if !ok {
			err = wire.ErrNoRooms
		} else {
			err = rc.RecallScene(ctx, o.SceneID, o.GroupID, o.Transition)
		}
	} else {
		var res wire.Result
		res, err = c.SetGroupState(ctx, o.GroupID, o.Body)
		if err == nil {
			err = refusedError(res)
		}
	}
	s.cache.unanswered(err)
	if err == nil {
		for id, st := range o.States {
			s.cache.answered(sentAt, st, wire.Result{Accepted: st}, id)
		}
	}
	s.mu.Lock()
	wake := s.groupLine.finish(o, err)
	s.mu.Unlock()
	if wake {
		s.wakes.groups([]types.NamespacedName{o.Key})
	}
}

// groupPending reports whether the HueGroup has the command fullKey in line
// or being sent, and when it should go out.
func (s *sender) groupPending(key types.NamespacedName, fullKey string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.groupLine.pending(key, fullKey)
}

// dropGroup removes a HueGroup's queued command and remembered error.
func (s *sender) dropGroup(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groupLine.drop(key)
}

func (s *sender) hasGroupOrder() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.groupLine.orders) > 0
}

func (s *sender) takeGroupOrder() *groupOrder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.groupLine.take()
}

package bridge

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// HueGroups' commands: their line, first come first sent, one group slot
// each, and how they go (below the line, which only keeps order).

// GroupChange is a HueGroup's command: a state for its whole group, or a
// scene to recall on it.
type GroupChange struct {
	Key        types.NamespacedName
	GroupID    string
	Body       model.StateBody // the state, when SceneID is ""
	SceneID    string
	Transition *int
	// States are what each light will show once sent: recorded as
	// accepted.
	States map[string]model.StateBody
	// FullKey tells one command from another for the same HueGroup.
	FullKey string
}

// groupOrder is a GroupChange waiting for, or going through, the group
// loop.
type groupOrder struct {
	GroupChange
	handover
}

// groupLine holds the HueGroups' commands, first come first sent, those
// being sent, and the errors of commands nobody waited for. It only keeps
// order: the sender sends, under its lock.
type groupLine struct {
	orders   []*groupOrder
	inFlight map[types.NamespacedName]*groupOrder
	failed   map[types.NamespacedName]failure
}

func newGroupLine() groupLine {
	return groupLine{inFlight: map[types.NamespacedName]*groupOrder{}, failed: map[types.NamespacedName]failure{}}
}

// add hands a command over; a newer one replaces the one in line, and one
// identical to the one being sent is that one. It reports whether the
// order is new to the line.
func (g *groupLine) add(c GroupChange) (*groupOrder, bool) {
	if o, ok := g.inFlight[c.Key]; ok && o.FullKey == c.FullKey {
		o.waiting = true
		return o, false
	}
	for _, o := range g.orders {
		if o.Key == c.Key {
			o.GroupChange, o.waiting = c, true
			return o, false
		}
	}
	o := &groupOrder{GroupChange: c, handover: newHandover()}
	g.orders = append(g.orders, o)
	return o, true
}

// waiting counts the commands in line and being sent.
func (g *groupLine) waiting() int { return len(g.orders) + len(g.inFlight) }

// pending reports whether the HueGroup has a command in line or being
// sent that is fullKey, and when it should go out.
func (g *groupLine) pending(key types.NamespacedName, fullKey string) (time.Duration, bool) {
	if o, ok := g.inFlight[key]; ok && o.FullKey == fullKey {
		return GroupSlot, true
	}
	for i, o := range g.orders {
		if o.Key == key && o.FullKey == fullKey {
			return time.Duration(i+1) * GroupSlot, true
		}
	}
	return 0, false
}

// drop removes a HueGroup's queued command and remembered error.
func (g *groupLine) drop(key types.NamespacedName) {
	delete(g.failed, key)
	for i, o := range g.orders {
		if o.Key == key {
			g.orders = append(g.orders[:i], g.orders[i+1:]...)
			break
		}
	}
}

// take takes the head of the line, nil when none waits.
func (g *groupLine) take() *groupOrder {
	if len(g.orders) == 0 {
		return nil
	}
	o := g.orders[0]
	g.orders = g.orders[1:]
	g.inFlight[o.Key] = o
	return o
}

// finish records a sent order's outcome, and reports whether its HueGroup
// is to be woken (nobody waited for it; its error, if any, is kept for
// its next pass).
func (g *groupLine) finish(o *groupOrder, err error) (wake bool) {
	if g.inFlight[o.Key] == o {
		delete(g.inFlight, o.Key)
	}
	o.sent, o.err = true, err
	if !o.waiting && err != nil {
		g.failed[o.Key] = failure{fullKey: o.FullKey, err: err}
	}
	close(o.done)
	return !o.waiting
}

// GroupSlot is the bridge's group budget: the Hue documentation asks for at
// most one group command a second (docs/hue-behaviour.md, "Rate").
const GroupSlot = time.Second

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

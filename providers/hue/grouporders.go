package hue

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// HueGroups' commands go through the sender's group loop, on the bridge's
// group budget beside the HueLights' batches, and before them: a HueGroup's
// change is one group command by design, a batch only saves light slots.

// groupOrder is one HueGroup's command: a state for its whole group, or a
// scene to recall on it.
type groupOrder struct {
	key        types.NamespacedName
	groupID    string
	body       wire.StateBody // the state, when sceneID is ""
	sceneID    string
	transition *int
	// states are what each light will show once sent: recorded as accepted.
	states map[string]wire.StateBody
	// fullKey tells one command from another for the same HueGroup.
	fullKey string
	waiting bool
	sent    bool
	err     error
	done    chan struct{}
}

// groupRequest is what a HueGroup asks the sender to send.
type groupRequest struct {
	key        types.NamespacedName
	groupID    string
	body       wire.StateBody
	sceneID    string
	transition *int
	states     map[string]wire.StateBody
	fullKey    string
}

// enqueueGroup hands a HueGroup's command over; a newer one replaces the
// one in line, and one identical to the one being sent is that one.
func (s *sender) enqueueGroup(r groupRequest) *groupOrder {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.groupInFlight[r.key]; ok && o.fullKey == r.fullKey {
		o.waiting = true
		return o
	}
	for _, o := range s.groupLine {
		if o.key == r.key {
			o.groupID, o.body, o.sceneID, o.transition, o.states, o.fullKey, o.waiting =
				r.groupID, r.body, r.sceneID, r.transition, r.states, r.fullKey, true
			return o
		}
	}
	o := &groupOrder{key: r.key, groupID: r.groupID, body: r.body, sceneID: r.sceneID, transition: r.transition,
		states: r.states, fullKey: r.fullKey, waiting: true, done: make(chan struct{})}
	s.groupLine = append(s.groupLine, o)
	kick(s.groupKick)
	return o
}

// awaitGroup waits up to max for o to be sent, as await does for lights.
func (s *sender) awaitGroup(ctx context.Context, o *groupOrder, max time.Duration) (bool, error) {
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-o.done:
	case <-t.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.sent {
		return true, o.err
	}
	o.waiting = false
	return false, nil
}

// groupSlotSoon reports whether o is the only group command in line and the
// bridge's next group slot comes within d.
func (s *sender) groupSlotSoon(d time.Duration) bool {
	s.mu.Lock()
	n := len(s.groupLine) + len(s.groupInFlight)
	s.mu.Unlock()
	if n > 1 {
		return false
	}
	tokens := s.groups.Tokens()
	return tokens >= 1 || time.Duration((1-tokens)*float64(groupSlot)) <= d
}

// groupPending reports whether the HueGroup has a command in line or being
// sent that is fullKey, and when it should go out.
func (s *sender) groupPending(key types.NamespacedName, fullKey string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.groupInFlight[key]; ok && o.fullKey == fullKey {
		return groupSlot, true
	}
	for i, o := range s.groupLine {
		if o.key == key && o.fullKey == fullKey {
			return time.Duration(i+1) * groupSlot, true
		}
	}
	return 0, false
}

// takeGroupFailure returns (and forgets) the error of a command the
// HueGroup did not wait for, if it still wants that command.
func (s *sender) takeGroupFailure(key types.NamespacedName, fullKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return takeFailureOf(s.groupFailed, key, fullKey)
}

// dropGroup removes a HueGroup's queued command and remembered error.
func (s *sender) dropGroup(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.groupFailed, key)
	for i, o := range s.groupLine {
		if o.key == key {
			s.groupLine = append(s.groupLine[:i], s.groupLine[i+1:]...)
			break
		}
	}
}

// takeGroupOrder takes the head of the HueGroups' line.
func (s *sender) takeGroupOrder() *groupOrder {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.groupLine) == 0 {
		return nil
	}
	o := s.groupLine[0]
	s.groupLine = s.groupLine[1:]
	s.groupInFlight[o.key] = o
	return o
}

func (s *sender) hasGroupOrder() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.groupLine) > 0
}

// sendGroupOrder sends one HueGroup command (its group slot taken) and
// records what each light will show.
func (s *sender) sendGroupOrder(ctx context.Context, o *groupOrder) {
	var err error
	c := s.deps.client()
	if o.sceneID != "" {
		rc, ok := wire.RoomsOf(c)
		if !ok {
			err = wire.ErrNoRooms
		} else {
			err = rc.RecallScene(ctx, o.sceneID, o.groupID, o.transition)
		}
	} else {
		var res wire.Result
		res, err = c.SetGroupState(ctx, o.groupID, o.body)
		if err == nil {
			err = refusedError(res)
		}
	}
	s.deps.unanswered(err)
	if err == nil {
		for id, st := range o.states {
			s.deps.answered(st, wire.Result{Accepted: st}, id)
		}
	}
	s.mu.Lock()
	if s.groupInFlight[o.key] == o {
		delete(s.groupInFlight, o.key)
	}
	o.sent, o.err = true, err
	var wake []types.NamespacedName
	if !o.waiting {
		if err != nil {
			s.groupFailed[o.key] = failure{fullKey: o.fullKey, err: err}
		}
		wake = append(wake, o.key)
	}
	close(o.done)
	s.mu.Unlock()
	s.deps.wakeGroups(wake)
}

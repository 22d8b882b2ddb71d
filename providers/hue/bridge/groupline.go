package bridge

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
)

// The HueGroups' line: their commands, first come first sent, one group
// slot each. It only keeps order; grouporders.go sends.

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

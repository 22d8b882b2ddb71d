package bridge

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
)

// order is one HueLight's command waiting for, or going through, the sender.
type order struct {
	key     types.NamespacedName
	lightID string
	body    model.StateBody // what differs: the light command
	full    model.StateBody // the whole wanted state: the group command
	fullKey string          // full.Key(), to find orders that want one state
	// queuedAt is when the order joined the line: gathering holds no
	// order for longer than gatherMax.
	queuedAt time.Time
	handover
}

// handover is a command handed to the sender, as the pass that handed it
// over sees it: a HueLight's order or a HueGroup's.
type handover struct {
	// waiting is true while a pass waits for the result itself; the
	// sender wakes the object only when nobody waits.
	waiting bool
	sent    bool
	err     error
	done    chan struct{} // closed once sent (or refused)
}

func newHandover() handover { return handover{waiting: true, done: make(chan struct{})} }

// line holds the HueLights' commands waiting for the bridge's light
// budget: a queue per namespace, served in turn, so that HueLights in one
// room do not wait for all of another room's. It only keeps order: the
// sender decides what goes, under its lock.
type line struct {
	queues map[string][]*order // namespace -> orders, oldest first
	ring   []string            // namespaces with queued orders, in turn
	turn   int                 // index in ring of the namespace served next
	queued map[types.NamespacedName]*order
}

func newLine() line {
	return line{queues: map[string][]*order{}, queued: map[types.NamespacedName]*order{}}
}

// len is how many orders wait.
func (l *line) len() int { return len(l.queued) }

// get is key's order in line.
func (l *line) get(key types.NamespacedName) (*order, bool) {
	o, ok := l.queued[key]
	return o, ok
}

// push queues o at the back of its namespace's queue, or at the front for
// an order a failed group command gives back. A namespace new to the line
// joins at the end of the turn.
func (l *line) push(o *order, front bool) {
	ns := o.key.Namespace
	if len(l.queues[ns]) == 0 {
		l.ring = append(l.ring, ns)
	}
	if front {
		l.queues[ns] = append([]*order{o}, l.queues[ns]...)
	} else {
		l.queues[ns] = append(l.queues[ns], o)
	}
	l.queued[o.key] = o
}

// remove takes o out of its namespace's queue.
func (l *line) remove(o *order) {
	delete(l.queued, o.key)
	ns := o.key.Namespace
	l.queues[ns] = slices.DeleteFunc(l.queues[ns], func(q *order) bool { return q == o })
	l.leaveRingIfEmpty(ns)
}

// next takes the head of the queue whose turn it is, passing over the
// namespaces held (nil: none is), nil when none may go.
func (l *line) next(held func(ns string) bool) *order {
	for i := range l.ring {
		at := (l.turn + i) % len(l.ring)
		ns := l.ring[at]
		if held != nil && held(ns) {
			continue
		}
		o := l.queues[ns][0]
		l.queues[ns] = l.queues[ns][1:]
		delete(l.queued, o.key)
		l.turn = at
		if len(l.queues[ns]) == 0 {
			l.leaveRingIfEmpty(ns)
		} else {
			l.turn = (at + 1) % len(l.ring)
		}
		return o
	}
	return nil
}

// anyFree reports whether an order of a namespace not held waits.
func (l *line) anyFree(held func(ns string) bool) bool {
	for _, ns := range l.ring {
		if !held(ns) {
			return true
		}
	}
	return false
}

// leaveRingIfEmpty takes a namespace with nothing queued out of turn.
func (l *line) leaveRingIfEmpty(ns string) {
	if len(l.queues[ns]) > 0 {
		return
	}
	delete(l.queues, ns)
	for i, r := range l.ring {
		if r != ns {
			continue
		}
		l.ring = append(l.ring[:i], l.ring[i+1:]...)
		if i < l.turn {
			l.turn--
		}
		break
	}
	if l.turn >= len(l.ring) {
		l.turn = 0
	}
}

// wait is how long o should wait: its place in its namespace's queue times
// the namespaces taking turns, in slots of the given length.
func (l *line) wait(o *order, slot time.Duration) time.Duration {
	place := 0
	for i, q := range l.queues[o.key.Namespace] {
		if q == o {
			place = i
			break
		}
	}
	return time.Duration(place*max(len(l.ring), 1)+1) * slot
}

// takeFair returns up to n queued orders, one per light, namespaces in
// turn from the one whose turn it is; they stay in line. Orders for what
// only a light command carries (an effect) are left out: a scene's
// lightstates cannot hold it.
func (l *line) takeFair(n int) []*order {
	var out []*order
	seen := map[string]bool{}
	next := map[string]int{}
	for len(out) < n {
		took := false
		for i := range l.ring {
			ns := l.ring[(l.turn+i)%len(l.ring)]
			q := l.queues[ns]
			for next[ns] < len(q) {
				o := q[next[ns]]
				next[ns]++
				if !seen[o.lightID] && !o.full.LightOnly() {
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

// largestSameState groups the queued orders by the whole state they want,
// and returns the largest group. An order for what only a light command
// carries (an effect) is in none: no group command can send it.
func (l *line) largestSameState() []*order {
	byState := map[string][]*order{}
	var best []*order
	for _, q := range l.queues {
		for _, o := range q {
			if o.full.LightOnly() {
				continue
			}
			k := o.fullKey
			byState[k] = append(byState[k], o)
			if len(byState[k]) > len(best) {
				best = byState[k]
			}
		}
	}
	return best
}

// oldest is when the longest-waiting order joined the line: a queue's head
// is its oldest (orders given back return to the head).
func (l *line) oldest() (time.Time, bool) {
	var at time.Time
	for _, q := range l.queues {
		if len(q) > 0 && (at.IsZero() || q[0].queuedAt.Before(at)) {
			at = q[0].queuedAt
		}
	}
	return at, !at.IsZero()
}

package bridge

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
)

// A HueLight's command, from the pass that hands it over to the bridge's
// answer: a newer one replaces the queued one in its place, a pass waits
// briefly for it when it is alone in line, and one nobody waited for wakes
// its HueLight once sent, its refusal kept for the HueLight's next pass.
// Below: the order and the line it waits in, a queue per namespace.

// Change is what a HueLight asks the sender to send: what differs (Body,
// the light command) and the whole state it wants (Full, what a group
// command or a temporary scene sends), for its generation.
type Change struct {
	Key        types.NamespacedName
	LightID    string
	Body       model.StateBody
	Full       model.StateBody
	Generation int64
}

// send hands a HueLight's command over and, when it is alone in line and
// the bridge's next slot comes within maxWait, waits for it: on an idle
// bridge the pass that asked gets the bridge's answer. It reports whether
// the command went out (then err is the bridge's answer); one still in
// line is sent later, and its HueLight woken then. A refusal of a command
// the HueLight did not wait for, for the same state, is returned here, at
// its next pass.
func (s *sender) send(ctx context.Context, c Change, maxWait time.Duration) (bool, error) {
	if err := s.takeFailure(c.Key, c.Full.Key()); err != nil {
		s.arrived(c.Key, c.Generation)
		return true, err
	}
	o := s.enqueue(c)
	wait := time.Duration(0) // under load: leave at once, to be woken
	if s.alone(o, maxWait) {
		wait = maxWait
	}
	return s.await(ctx, &o.handover, wait)
}

// enqueue hands a command over. A newer body for a HueLight already in the
// line replaces the queued one and keeps its place; a command identical to
// one being sent is that one.
func (s *sender) enqueue(c Change) *order {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.arrivedLocked(c.Key, c.Generation)
	if o, ok := s.inFlight[c.Key]; ok && o.body.Key() == c.Body.Key() {
		o.waiting = true
		return o
	}
	if o, ok := s.line.get(c.Key); ok {
		o.lightID, o.body, o.full, o.fullKey, o.waiting = c.LightID, c.Body, c.Full, c.Full.Key(), true
		return o
	}
	o := &order{key: c.Key, lightID: c.LightID, body: c.Body, full: c.Full, fullKey: c.Full.Key(),
		queuedAt: time.Now(), handover: newHandover()}
	s.line.push(o, false)
	s.joinLocked(c.Key, c.Generation)
	kick(s.lightKick)
	kick(s.groupKick)
	return o
}

// await waits up to max (and ctx) for o (a HueLight's order or a
// HueGroup's) to be sent. When it was not, the caller leaves: the sender
// then wakes its object once it is sent.
func (s *sender) await(ctx context.Context, o *handover, max time.Duration) (sent bool, err error) {
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

// alone reports whether o is the only command in line and the bridge's next
// slot comes within d: then waiting for it beats a second reconcile.
func (s *sender) alone(o *order, d time.Duration) bool {
	s.mu.Lock()
	n := s.line.len() + len(s.inFlight)
	_, mine := s.inFlight[o.key]
	_, queued := s.line.get(o.key)
	s.mu.Unlock()
	if n > 1 || (n == 1 && !mine && !queued) {
		return false
	}
	tokens := s.lights.Tokens()
	return tokens >= 1 || time.Duration((1-tokens)*float64(s.interval)) <= d
}

// Queued is a HueLight's command in the sender's line or being sent.
type Queued struct {
	// FullKey is the whole state the command is for ("" when none).
	FullKey string
	// ETA is when it should go out, Waited how long it has waited.
	ETA, Waited time.Duration
}

// For reports whether the command in line is for the whole state full.
func (q Queued) For(full model.StateBody) bool { return q.FullKey != "" && q.FullKey == full.Key() }

// queued is the HueLight's command in line or being sent: the whole
// state it is for, when it should go out, and how long it has waited.
func (s *sender) queued(key types.NamespacedName) Queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.line.get(key)
	sending, isSending := s.inFlight[key]
	if !ok {
		o, ok = sending, isSending
	}
	if !ok {
		return Queued{}
	}
	var eta time.Duration
	if isSending {
		eta = 2 * GroupSlot // at most a group command's action and its wait
	} else {
		eta = s.line.wait(o, s.interval)
	}
	return Queued{FullKey: o.fullKey, ETA: eta, Waited: time.Since(o.queuedAt)}
}

// takeFailure returns (and forgets) the error of a command the HueLight did
// not wait for, so that its next pass reports it; but only when the
// HueLight still wants that state: after a spec change the old refusal says
// nothing about the new command (and, terminal, would block it).
func (s *sender) takeFailure(key types.NamespacedName, fullKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return takeFailureOf(s.failed, key, fullKey)
}

// drop removes a HueLight's queued command and remembered error: it was
// deleted or paused, or its bulb already matches. It sends nothing for
// generation gen or any before it, so the line no longer waits for it; a
// later generation is expected as usual (the next spec change gathers).
func (s *sender) drop(key types.NamespacedName, gen int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrivedLocked(key, gen)
	delete(s.failed, key)
	if o, ok := s.line.get(key); ok {
		s.line.remove(o)
	}
}

// finish records the outcome of sent orders. A HueLight that did not wait
// is woken, and its error kept for its next pass. One whose pass waited is
// woken too when the bridge accepted: that pass only reports the command
// sent (and would look again after the generic wait), while the next pass
// finds the state the bridge accepted and reports Ready at once. A refusal
// goes to the waiting pass alone, which backs off.
func (s *sender) finish(orders []*order, err error) {
	var wake []types.NamespacedName
	s.mu.Lock()
	for _, o := range orders {
		if s.inFlight[o.key] == o {
			delete(s.inFlight, o.key)
		}
		o.sent, o.err = true, err
		if !o.waiting && err != nil {
			s.failed[o.key] = failure{fullKey: o.fullKey, err: err}
		}
		if !o.waiting || err == nil {
			wake = append(wake, o.key)
		}
		close(o.done)
	}
	s.mu.Unlock()
	s.wakes.lights(wake)
}

// giveBack puts orders at the head of their lines, in their order, unless
// the HueLight has queued a newer command since.
func (s *sender) giveBack(orders []*order) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(orders) - 1; i >= 0; i-- {
		o := orders[i]
		if s.inFlight[o.key] == o {
			delete(s.inFlight, o.key)
		}
		if _, newer := s.line.get(o.key); !newer {
			s.line.push(o, true)
		}
	}
	kick(s.lightKick)
}

// arrived records that a HueLight handed its command for generation gen
// over or needs none; the sender's loops look again when it was the last
// expected.
func (s *sender) arrived(key types.NamespacedName, gen int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrivedLocked(key, gen)
}

func (s *sender) arrivedLocked(key types.NamespacedName, gen int64) {
	if s.gather.arrived(key, gen, time.Now()) {
		kick(s.lightKick)
		kick(s.groupKick)
	}
}

// forgetArrivals drops what is known of a HueLight that is gone.
func (s *sender) forgetArrivals(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gather.forget(key)
}

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

package hue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// sender is the only goroutine that sends light commands to one bridge. It
// drains per-namespace queues in turn at the bridge's rate (burst 1, so
// Tether never bursts past the bridge's own bucket): 250 HueLights in one
// room and 250 in another progress together, and no slot is lost waiting
// for a HueLight to come back, as happened when each reconcile had to ask
// for its own slot.
//
// HueLights hand their command over (enqueue) and wait briefly for it; a
// command that cannot go out at once is sent later and its HueLight woken.
// A second goroutine (groups.go) sends same-state commands as group
// commands on the bridge's group budget.
//
// It knows the rest of the session only through senderDeps.
type sender struct {
	deps     senderDeps
	lights   *rate.Limiter // light commands
	groups   *rate.Limiter // group create, action and delete
	interval time.Duration // one light slot

	mu       sync.Mutex
	queues   map[string][]*order // namespace -> orders, oldest first
	ring     []string            // namespaces with queued orders, in turn
	turn     int                 // index in ring of the namespace served next
	queued   map[types.NamespacedName]*order
	inFlight map[types.NamespacedName]*order  // being sent, alone or in a group
	failed   map[types.NamespacedName]failure // errors nobody waited for
	// noTempGroupsUntil pauses temporary groups after the bridge refused
	// one (group table full): light commands carry on meanwhile.
	noTempGroupsUntil time.Time
	// noGroupsUntil pauses all group commands after the bridge refused a
	// group action, so a refusal is not repeated every second.
	noGroupsUntil  time.Time
	leftoverGroups []string   // temporary groups whose deletion failed
	sc             sceneState // temporary scenes and gathering (tempscenes.go)
	// HueGroups' commands (grouporders.go).
	groupLine     []*groupOrder
	groupInFlight map[types.NamespacedName]*groupOrder
	groupFailed   map[types.NamespacedName]failure

	lightKick chan struct{}
	groupKick chan struct{}
}

// order is one HueLight's command waiting for, or going through, the sender.
type order struct {
	key     types.NamespacedName
	lightID string
	body    wire.StateBody // what differs: the light command
	full    wire.StateBody // the whole wanted state: the group command
	fullKey string         // full.key(), to find orders that want one state
	// waiting is true while an Update waits for the result itself; the
	// sender wakes the HueLight only when nobody waits.
	waiting bool
	// queuedAt is when the order joined the line: gathering holds no
	// order for longer than gatherMax (tempscenes.go).
	queuedAt time.Time
	sent     bool
	err      error
	done     chan struct{} // closed once sent (or refused)
}

// senderDeps is what the sender needs of its session: the bridge, where to
// record what the bridge accepted, whom to wake, and what the HueLights
// want (for group 0).
type senderDeps struct {
	client func() wire.Client
	// answered records the bridge's answer to a command sent to lightIDs.
	answered func(sent wire.StateBody, res wire.Result, lightIDs ...string)
	wake     func([]types.NamespacedName)
	// wanted is the whole state each watched light's HueLight wants, by
	// light id (StateBody.key); lightIDs are all lights of the bridge.
	wanted   func() map[string]string
	lightIDs func() []string
	log      logr.Logger
	// wakeGroups wakes HueGroups whose command went out.
	wakeGroups func([]types.NamespacedName)
	// answering reports whether the bridge answers, and otherwise returns
	// a channel closed once a read finds it answering again; unanswered
	// records a call's error that says it does not (cache.go).
	answering  func() (bool, <-chan struct{})
	unanswered func(error)
}

// request is what a HueLight asks the sender to send.
type request struct {
	key     types.NamespacedName
	lightID string
	body    wire.StateBody
	full    wire.StateBody
	// generation is the HueLight's, for gathering (tempscenes.go).
	generation int64
}

// groupSlot is the bridge's group budget: about one group command a second.
const groupSlot = time.Second

func newSender(deps senderDeps, perSecond float64) *sender {
	return &sender{
		deps:          deps,
		lights:        rate.NewLimiter(rate.Limit(perSecond), 1),
		groups:        rate.NewLimiter(rate.Every(groupSlot), 1),
		interval:      time.Duration(float64(time.Second) / perSecond),
		queues:        map[string][]*order{},
		queued:        map[types.NamespacedName]*order{},
		inFlight:      map[types.NamespacedName]*order{},
		failed:        map[types.NamespacedName]failure{},
		groupInFlight: map[types.NamespacedName]*groupOrder{},
		groupFailed:   map[types.NamespacedName]failure{},
		lightKick:     make(chan struct{}, 1),
		groupKick:     make(chan struct{}, 1),
	}
}

// run sends until ctx ends (the session stops).
func (s *sender) run(ctx context.Context) {
	go s.runGroups(ctx)
	s.runLights(ctx)
}

// enqueue hands a command over. A newer body for a HueLight already in the
// line replaces the queued one and keeps its place; a command identical to
// one being sent is that one.
func (s *sender) enqueue(r request) *order {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.arrivedLocked(r.key, r.generation)
	if o, ok := s.inFlight[r.key]; ok && o.body.Key() == r.body.Key() {
		o.waiting = true
		return o
	}
	if o, ok := s.queued[r.key]; ok {
		o.lightID, o.body, o.full, o.fullKey, o.waiting = r.lightID, r.body, r.full, r.full.Key(), true
		return o
	}
	o := &order{key: r.key, lightID: r.lightID, body: r.body, full: r.full, fullKey: r.full.Key(),
		waiting: true, queuedAt: time.Now(), done: make(chan struct{})}
	s.pushLocked(o, false)
	kick(s.lightKick)
	kick(s.groupKick)
	return o
}

// pushLocked queues o at the back of its namespace's line (or the front,
// for an order a failed group command gives back).
func (s *sender) pushLocked(o *order, front bool) {
	ns := o.key.Namespace
	if len(s.queues[ns]) == 0 {
		s.ring = append(s.ring, ns) // a new namespace joins at the end of the turn
	}
	if front {
		s.queues[ns] = append([]*order{o}, s.queues[ns]...)
	} else {
		s.queues[ns] = append(s.queues[ns], o)
	}
	s.queued[o.key] = o
}

func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// await waits up to max (and ctx) for o to be sent. When it was not, the
// caller leaves: the sender then wakes its HueLight once it is sent.
func (s *sender) await(ctx context.Context, o *order, max time.Duration) (sent bool, err error) {
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
	n := len(s.queued) + len(s.inFlight)
	_, mine := s.inFlight[o.key]
	_, queued := s.queued[o.key]
	s.mu.Unlock()
	if n > 1 || (n == 1 && !mine && !queued) {
		return false
	}
	tokens := s.lights.Tokens()
	return tokens >= 1 || time.Duration((1-tokens)*float64(s.interval)) <= d
}

// estimate is when o should go out: its place in its namespace's line times
// the namespaces taking turns.
func (s *sender) estimate(o *order) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.inFlight[o.key]; ok {
		return 2 * groupSlot // at most a group command's action and its wait
	}
	place := 0
	for i, q := range s.queues[o.key.Namespace] {
		if q == o {
			place = i
			break
		}
	}
	return time.Duration(place*max(len(s.ring), 1)+1) * s.interval
}

// pending reports whether key has a command in line or being sent that
// wants the state fullKey, when it should go out, and how long it has
// been in line.
func (s *sender) pending(key types.NamespacedName, fullKey string) (eta, waited time.Duration, ok bool) {
	s.mu.Lock()
	o, ok := s.queued[key]
	if !ok {
		o, ok = s.inFlight[key]
	}
	s.mu.Unlock()
	if !ok || o.fullKey != fullKey {
		return 0, 0, false
	}
	return s.estimate(o), time.Since(o.queuedAt), true
}

// failure is the bridge's refusal of a command nobody waited for, with the
// state that command wanted.
type failure struct {
	fullKey string
	err     error
}

// takeFailure returns (and forgets) the error of a command the HueLight did
// not wait for, so that its next reconcile reports it; but only when the
// HueLight still wants that state: after a spec change the old refusal says
// nothing about the new command (and, terminal, would block it).
func (s *sender) takeFailure(key types.NamespacedName, fullKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return takeFailureOf(s.failed, key, fullKey)
}

// takeFailureOf removes key's remembered failure from failed and returns its
// error if it was for the command fullKey; callers hold s.mu.
func takeFailureOf(failed map[types.NamespacedName]failure, key types.NamespacedName, fullKey string) error {
	f, ok := failed[key]
	delete(failed, key)
	if !ok || f.fullKey != fullKey {
		return nil
	}
	return f.err
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
	if o, ok := s.queued[key]; ok {
		s.unqueueLocked(o)
	}
}

// leaveRingIfEmptyLocked takes a namespace with nothing queued out of turn.
func (s *sender) leaveRingIfEmptyLocked(ns string) {
	if len(s.queues[ns]) > 0 {
		return
	}
	delete(s.queues, ns)
	for i, r := range s.ring {
		if r != ns {
			continue
		}
		s.ring = append(s.ring[:i], s.ring[i+1:]...)
		if i < s.turn {
			s.turn--
		}
		break
	}
	if s.turn >= len(s.ring) {
		s.turn = 0
	}
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
		res, err := s.deps.client().SetLightState(ctx, o.lightID, o.body)
		s.deps.unanswered(err)
		if err == nil {
			// What it accepted counts; what it refused is remembered and
			// named in the HueLight's conditions, not an error of the
			// command.
			s.deps.answered(o.body, res, o.lightID)
			if len(res.Refused) > 0 {
				s.deps.log.Info("the bridge refused part of a command", "light", o.lightID, "hueLight", o.key.String(),
					"refused", fmt.Sprint(res.Refused))
			}
		}
		s.finish([]*order{o}, err)
	}
}

// awaitAnswering holds the sender while the session knows its bridge does
// not answer (a read or a command found no connection or no answer in
// time), until a read finds it answering again: the poll loop reads once
// per interval meanwhile, so an outage costs those reads and no command,
// whatever waits in line. False when ctx ended.
func (s *sender) awaitAnswering(ctx context.Context) bool {
	for {
		ok, back := s.deps.answering()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-back:
		}
	}
}

// waitForWork blocks until a command is queued and the line is not held
// for HueLights about to join it (gathering, tempscenes.go) nor due to go
// as one group command (the group loop takes it at its next slot); false
// when ctx ended.
func (s *sender) waitForWork(ctx context.Context) bool {
	for {
		s.mu.Lock()
		n, now := len(s.queued), time.Now()
		held := s.gatheringLocked(now)
		var left time.Duration
		switch {
		case held:
			left = s.gatherLeft(now)
		case n > 0 && s.chooseLocked() != nil:
			held, left = true, groupSlot
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

// next takes the head of the next namespace's line.
func (s *sender) next() *order {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ring) == 0 {
		return nil
	}
	ns := s.ring[s.turn]
	o := s.queues[ns][0]
	s.queues[ns] = s.queues[ns][1:]
	delete(s.queued, o.key)
	s.inFlight[o.key] = o
	if len(s.queues[ns]) == 0 {
		s.leaveRingIfEmptyLocked(ns)
	} else {
		s.turn = (s.turn + 1) % len(s.ring)
	}
	return o
}

// finish records the outcome of sent orders. A HueLight that did not wait
// is woken, and its error kept for its next reconcile. One whose reconcile
// waited is woken too when the bridge accepted: that reconcile only reports
// the command sent (and would look again after the generic wait), while the
// next pass finds the state the bridge accepted and reports Ready at once.
// A refusal goes to the waiting reconcile alone, which backs off.
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
	s.deps.wake(wake)
}

// refusedError is the first attribute the bridge refused, as an error.
func refusedError(res wire.Result) error {
	if len(res.Refused) == 0 {
		return nil
	}
	r := res.Refused[0]
	return &wire.BridgeError{Type: r.Type, Address: r.Param, Description: r.Description}
}

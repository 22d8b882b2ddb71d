package bridge

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

// sender is the only part that writes to one bridge, within its two
// budgets: light commands at the bridge's rate (burst 1, so Tether never
// bursts past the bridge's own bucket) and group commands at GroupSlot.
// Two loops spend them: runLights sends HueLights' commands one per slot,
// namespaces in turn; runGroups sends HueGroups' commands and, for
// HueLights, batches (group 0, a temporary group or a temporary scene).
//
// A HueLight hands its command over (send, orders.go) and waits briefly
// for it; a command that cannot go out at once is sent later and its
// HueLight woken. Who goes when is decided by parts that each keep a state
// of their own,
// all under the sender's one lock: line.go (the HueLights' queues),
// gathering.go (HueLights about to join the line), tempgroups.go and
// tempscenes.go (batches), grouporders.go (the HueGroups' line).
type sender struct {
	client *clientRef
	cache  *cache // where answers go, what HueLights want, whether the bridge answers
	wakes  *wakes
	log    logr.Logger

	lights   *rate.Limiter // light commands, temporary scenes' stores and deletions, scenes' writes
	groups   *rate.Limiter // group create, action and delete, rooms' writes
	interval time.Duration // one light slot

	mu         sync.Mutex
	line       line
	inFlight   map[types.NamespacedName]*order  // being sent, alone or in a group
	failed     map[types.NamespacedName]failure // errors nobody waited for
	gather     gathering
	tempGroups tempGroups
	scenes     tempScenes
	groupLine  groupLine

	lightKick chan struct{}
	groupKick chan struct{}
}

// GroupSlot is the bridge's group budget: the Hue documentation asks for at
// most one group command a second (hue-v1-facts.md).
const GroupSlot = time.Second

func newSender(client *clientRef, c *cache, w *wakes, log logr.Logger, settings Settings) *sender {
	return &sender{
		client:    client,
		cache:     c,
		wakes:     w,
		log:       log,
		lights:    rate.NewLimiter(rate.Limit(settings.CommandsPerSecond), 1),
		groups:    rate.NewLimiter(rate.Every(GroupSlot), 1),
		interval:  time.Duration(float64(time.Second) / settings.CommandsPerSecond),
		line:      newLine(),
		inFlight:  map[types.NamespacedName]*order{},
		failed:    map[types.NamespacedName]failure{},
		scenes:    tempScenes{enabled: settings.TemporaryScenes},
		groupLine: newGroupLine(),
		lightKick: make(chan struct{}, 1),
		groupKick: make(chan struct{}, 1),
	}
}

// run sends until ctx ends (the session stops).
func (s *sender) run(ctx context.Context) {
	go s.runGroups(ctx)
	s.runLights(ctx)
}

// kick wakes a loop without blocking; one kick waiting is enough.
func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
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
		res, err := s.client.get().SetLightState(ctx, o.lightID, o.body)
		s.cache.unanswered(err)
		if err == nil {
			// What it accepted counts; what it refused is remembered and
			// named in the HueLight's conditions, not an error of the
			// command.
			s.cache.answered(o.body, res, o.lightID)
			if len(res.Refused) > 0 {
				s.log.Info("the bridge refused part of a command", "light", o.lightID, "hueLight", o.key.String(),
					"refused", fmt.Sprint(res.Refused))
			}
		}
		s.finish([]*order{o}, err)
	}
}

// next takes the order whose turn it is, nil when none waits.
func (s *sender) next() *order {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.line.next()
	if o != nil {
		s.inFlight[o.key] = o
	}
	return o
}

// awaitAnswering holds the sender while the session knows its bridge does
// not answer (a read or a command found no connection or no answer in
// time), until a read finds it answering again: the poll loop reads once
// per interval meanwhile, so an outage costs those reads and no command,
// whatever waits in line. False when ctx ended.
func (s *sender) awaitAnswering(ctx context.Context) bool {
	for {
		ok, back := s.cache.answering()
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
// for HueLights about to join it (gathering) nor due to go as one group
// command (the group loop takes it at its next slot); false when ctx
// ended.
func (s *sender) waitForWork(ctx context.Context) bool {
	for {
		s.mu.Lock()
		n, now := s.line.len(), time.Now()
		held := s.gatheringLocked(now)
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
		s.deleteLeftoverGroups(ctx)
		s.deleteLeftoverScenes(ctx)
	}
}

// leftoversBack is closed when temporary groups or scenes wait to be deleted
// and a read finds the bridge answering again; nil otherwise.
func (s *sender) leftoversBack() <-chan struct{} {
	s.mu.Lock()
	left := len(s.tempGroups.leftovers) + len(s.scenes.leftovers)
	s.mu.Unlock()
	if left == 0 {
		return nil
	}
	_, back := s.cache.answering()
	return back
}

// refusedError is the first attribute the bridge refused, as an error.
func refusedError(res wire.Result) error {
	if len(res.Refused) == 0 {
		return nil
	}
	r := res.Refused[0]
	return &wire.BridgeError{Type: r.Type, Address: r.Param, Description: r.Description}
}

package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
)

// sender is the only part that writes to one bridge, within its two
// budgets: light commands at the bridge's rate (burst 1, so Tether never
// bursts past the bridge's own bucket) and group commands at GroupSlot.
// Its loops (loops.go) spend them. A HueLight hands its command over
// (orders.go) and waits briefly for it; a command that cannot go out at
// once is sent later and its HueLight woken. Who goes when is decided by
// parts that each keep a state of their own, under the sender's one lock:
// the HueLights' line (orders.go), the HueLights about to join it and
// batches (batches.go, tempgroups.go, tempscenes.go), the HueGroups' line
// (grouporders.go).
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

// refusalPause is how long temporary groups (or scenes) are not tried
// after the bridge refused one (its table is full, most likely), and
// batches not after it refused a group action, so that a refusal is not
// repeated every slot.
const refusalPause = time.Minute

func newSender(client *clientRef, c *cache, w *wakes, log logr.Logger, perSecond float64, temporaryScenes bool, groups *rate.Limiter) *sender {
	if groups == nil {
		groups = NewGroupBudget()
	}
	return &sender{
		client:    client,
		cache:     c,
		wakes:     w,
		log:       log,
		lights:    rate.NewLimiter(rate.Limit(perSecond), 1),
		groups:    groups,
		interval:  time.Duration(float64(time.Second) / perSecond),
		line:      newLine(),
		inFlight:  map[types.NamespacedName]*order{},
		failed:    map[types.NamespacedName]failure{},
		scenes:    tempScenes{enabled: temporaryScenes},
		groupLine: newGroupLine(),
		lightKick: make(chan struct{}, 1),
		groupKick: make(chan struct{}, 1),
	}
}

// NewGroupBudget is a bridge's group budget: one group write per
// GroupSlot. It is the bridge's, not a session's: a session that stops
// still deletes what it left (runGroups) while its successor starts, so
// the registry hands one budget to a bridge's sessions in turn
// (Options.GroupBudget).
func NewGroupBudget() *rate.Limiter { return rate.NewLimiter(rate.Every(GroupSlot), 1) }

// kick wakes a loop without blocking; one kick waiting is enough.
func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// next takes the order whose turn it is, passing over the namespaces a
// gathering holds; nil when none may go.
func (s *sender) next() *order {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.line.next(s.heldLocked(time.Now()))
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

// tempGroups is the sender's state for group commands of HueLights;
// guarded by the sender's mu.
type tempGroups struct {
	// pausedUntil pauses temporary groups after the bridge refused one
	// (group table full): light commands carry on meanwhile.
	pausedUntil time.Time
	// refusedUntil pauses all group batches after the bridge refused a
	// group action, so a refusal is not repeated every second.
	refusedUntil time.Time
	leftovers    []string // temporary groups whose deletion failed
}

// batch is queued orders sent as one group command: orders that want one
// state, or a temporary scene of orders that want states of their own.
type batch struct {
	groupZero bool // every light of the bridge wants this state
	scene     bool // a temporary scene (tempscenes.go)
	full      model.StateBody
	orders    []*order
}

// tempScenes is the sender's state for temporary scenes; guarded by the
// sender's mu.
type tempScenes struct {
	enabled     bool      // the HueBridge's spec.temporaryScenes
	pausedUntil time.Time // after the bridge refused a scene
	leftovers   []string  // temporary scenes whose deletion failed
	// zones are temporary zones to delete (v2 alone): those whose scene
	// is done (retireZone) and those whose deletion failed.
	zones []string
}

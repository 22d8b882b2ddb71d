package hue

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// Poller observes every light of one bridge with a single GET /lights per
// interval and keeps the result, so HueLights read a cache instead of
// polling their bulb each. After each poll it wakes only the HueLights
// whose bulb no longer matches what they want (or became (un)reachable,
// vanished, appeared), through the events channel.
type Poller struct {
	bridge   string
	client   Client
	interval time.Duration
	sender   *sender
	events   chan<- event.GenericEvent
	// bridgeEvents wakes the HueBridge when the bridge stops or starts
	// answering, so its Ready condition follows within a poll.
	bridgeEvents chan<- event.GenericEvent
	log          logr.Logger
	stop         context.CancelFunc
	// orphaned reports (and deregisters) a poller whose HueBridge is gone
	// without Delete having dropped it: deleted while paused.
	orphaned func(context.Context) bool
	builtAt  time.Time

	pollMu sync.Mutex // one GET /lights at a time

	mu       sync.Mutex
	lights   lightsByID // replaced, never changed in place
	err      error
	polledAt time.Time
	// contactAt is the last poll the bridge answered: the HueBridge's
	// health comes from the poller's GET /lights, not from GETs of its own.
	contactAt time.Time
	// configRead is set once the HueBridge read /config through this
	// poller, and cleared when the bridge comes back after failing polls.
	configRead bool
	watchers   map[types.NamespacedName]watch
	claims     claims
}

// watch is what the poller knows of one HueLight to decide if it drifted.
type watch struct {
	name      string // spec.name, to wake a HueLight whose bulb appears
	lightID   string
	want      Desired
	reachable bool
}

func newPoller(bridge string, c Client, interval time.Duration, perSecond float64,
	events, bridgeEvents chan<- event.GenericEvent, log logr.Logger) *Poller {
	p := &Poller{
		bridge:       bridge,
		client:       c,
		interval:     interval,
		events:       events,
		bridgeEvents: bridgeEvents,
		log:          log.WithValues("hueBridge", bridge),
		builtAt:      time.Now(),
		watchers:     map[types.NamespacedName]watch{},
		claims:       claims{},
	}
	p.sender = newSender(p, perSecond)
	return p
}

// run polls, and sends through the bridge's sender, until ctx ends.
func (p *Poller) run(ctx context.Context) {
	go p.sender.run(ctx)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		if p.orphaned != nil && p.orphaned(ctx) {
			p.log.Info("the HueBridge is gone; its poller stops")
			p.stop()
			return
		}
		// A HueLight's first Observe may just have polled: skip, not repeat.
		_ = p.refresh(ctx, p.interval/2)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll reads all lights now and wakes the HueLights that need it.
func (p *Poller) Poll(ctx context.Context) error {
	p.pollMu.Lock()
	defer p.pollMu.Unlock()
	return p.pollLocked(ctx)
}

// refresh polls unless the last poll is younger than maxAge.
func (p *Poller) refresh(ctx context.Context, maxAge time.Duration) error {
	p.pollMu.Lock()
	defer p.pollMu.Unlock()
	p.mu.Lock()
	age, err := time.Since(p.polledAt), p.err
	fresh := !p.polledAt.IsZero() && age < maxAge
	p.mu.Unlock()
	if fresh {
		return err
	}
	return p.pollLocked(ctx)
}

// pollLocked does the GET; callers hold pollMu.
func (p *Poller) pollLocked(ctx context.Context) error {
	lights, err := p.client.GetLights(ctx)
	p.mu.Lock()
	wasErr, first, count := p.err, p.polledAt.IsZero(), len(p.lights)
	p.polledAt, p.err = time.Now(), err
	var wake []types.NamespacedName
	health := (err == nil) != (wasErr == nil) || apiErrorType(err) != apiErrorType(wasErr)
	switch {
	case err != nil:
		if health {
			wake = p.allWatchersLocked()
		}
	default:
		p.contactAt = p.polledAt
		if wasErr != nil {
			p.configRead = false // back: its config may have changed meanwhile
		}
		p.lights = indexLights(lights)
		if wasErr != nil || first {
			wake = p.allWatchersLocked()
		} else {
			wake = p.driftedLocked()
		}
	}
	p.mu.Unlock()
	if err != nil {
		p.log.V(1).Info("poll failed", "error", err.Error())
	}
	p.wake(wake)
	if !first && (health || (err == nil && len(lights) != count)) {
		p.wakeBridge()
	}
	return err
}

func (p *Poller) wakeBridge() {
	ev := event.GenericEvent{Object: &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: p.bridge}}}
	select {
	case p.bridgeEvents <- ev:
	default:
	}
}

// Snapshot returns the last poll's lights, polling first when there is no
// recent result (the first HueLight of a bridge, or a stuck poller).
func (p *Poller) Snapshot(ctx context.Context) (lightsByID, error) {
	p.mu.Lock()
	fresh := !p.polledAt.IsZero() && time.Since(p.polledAt) < 3*p.interval
	lights, err := p.lights, p.err
	p.mu.Unlock()
	if fresh {
		return lights, err
	}
	if err := p.refresh(ctx, 3*p.interval); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lights, nil
}

// Watch records what a HueLight wants of its bulb, for drift detection.
func (p *Poller) Watch(key types.NamespacedName, w watch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watchers[key] = w
}

// Unwatch stops waking a HueLight on drift; its claim stays.
func (p *Poller) Unwatch(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.watchers, key)
}

// Pause stops acting for a HueLight until it is observed again: no watch
// (so no drift wakes it and group 0 does not count it as wanting a state)
// and no queued command. Its claim on the bulb stays.
func (p *Poller) Pause(key types.NamespacedName) {
	p.sender.drop(key)
	p.Unwatch(key)
}

// Forget stops watching a HueLight and drops its claim; it returns the
// HueLights that were waiting for that bulb, now woken.
// Its queued command, if any, is dropped.
func (p *Poller) Forget(key types.NamespacedName) {
	p.sender.drop(key)
	p.mu.Lock()
	delete(p.watchers, key)
	others := p.claims.release(key)
	p.mu.Unlock()
	p.wake(others)
}

// Applied records a state the bridge accepted for some lights (one light
// command, or a group command), so the next Observe does not see drift
// before the next poll.
func (p *Poller) Applied(body StateBody, lightIDs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := maps.Clone(p.lights)
	for _, id := range lightIDs {
		if l, ok := next[id]; ok {
			next[id] = l.applied(body)
		}
	}
	p.lights = next
}

// groupZeroIsSafe reports whether group 0 (every light of the bridge) may
// be set to full for the lights in batch: every other bulb must be held by
// a watching HueLight that wants that very state (it is about to be sent
// anyway). A bulb nobody manages, one that wants another state, and a
// paused HueLight's bulb (Pause drops its watch) all rule group 0 out.
func (p *Poller) groupZeroIsSafe(full StateBody, batch map[string]bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lights) == 0 {
		return false
	}
	want := full.key()
	wanting := make(map[string]bool, len(p.watchers))
	for _, w := range p.watchers {
		if w.lightID != "" {
			wanting[w.lightID] = FullBody(w.want).key() == want
		}
	}
	for id := range p.lights {
		if !batch[id] && !wanting[id] {
			return false
		}
	}
	return true
}

// lightIDs lists the bridge's lights as of the last poll.
func (p *Poller) lightIDs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Keys(p.lights))
}

// Claim registers key as wanting the bulb and returns who holds it.
func (p *Poller) Claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.claims.claim(key, lightID, created)
}

func (p *Poller) allWatchersLocked() []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(p.watchers))
	for k := range p.watchers {
		out = append(out, k)
	}
	return out
}

// driftedLocked lists the HueLights whose bulb differs from what they want.
func (p *Poller) driftedLocked() []types.NamespacedName {
	var out []types.NamespacedName
	for k, w := range p.watchers {
		if w.lightID == "" {
			if _, found := p.lights.byName(w.name); found {
				out = append(out, k)
			}
			continue
		}
		l, ok := p.lights[w.lightID]
		if !ok || l.Reachable != w.reachable || (l.Reachable && Compare(w.want, l) != nil) {
			out = append(out, k)
		}
	}
	return out
}

// wake enqueues HueLights without blocking the poller: if the controller is
// behind, a dropped wake-up is caught by the next poll or resync.
func (p *Poller) wake(keys []types.NamespacedName) {
	for _, k := range keys {
		ev := event.GenericEvent{Object: &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}}}
		select {
		case p.events <- ev:
		default:
			p.log.V(1).Info("wake-up dropped: queue full", "hueLight", k.String())
		}
	}
}

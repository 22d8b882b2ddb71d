package hue

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// cache is what Tether knows of one bridge's lights: the last full read,
// patched with what the bridge accepted since, the bridge's health as that
// read saw it, and what each HueLight wants of its bulb (to tell drift). It
// makes no call: reads come from whoever produces them (the session's poll
// loop on v1; an event stream can feed the same apply), and it answers with
// the HueLights to wake.
type cache struct {
	mu        sync.Mutex
	lights    lightsByID // replaced, never changed in place
	err       error
	readAt    time.Time // last read, answered or not
	contactAt time.Time // last read the bridge answered
	// configRead is set once the HueBridge read /config through this
	// session, and cleared when the bridge comes back after failing reads.
	configRead bool
	watchers   map[types.NamespacedName]watch
}

// watch is what the cache knows of one HueLight to decide if it drifted.
type watch struct {
	name      string // spec.name, to wake a HueLight whose bulb appears
	lightID   string
	want      Desired
	reachable bool
}

// read is one full read of the bridge's lights.
type read struct {
	lights []Light
	err    error
	at     time.Time
}

// readOutcome is what a read changed.
type readOutcome struct {
	wake []types.NamespacedName
	// health is true when the bridge started or stopped answering (or
	// answers with another error), count when its number of lights changed:
	// both wake the HueBridge.
	health, count bool
	first         bool
}

func newCache() *cache {
	return &cache{watchers: map[types.NamespacedName]watch{}}
}

// apply takes a read and returns the HueLights to wake: all of them when the
// bridge's health changed (or on the first read), otherwise those whose
// bulb drifted, became (un)reachable, vanished or appeared.
func (c *cache) apply(r read) readOutcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	wasErr, first, count := c.err, c.readAt.IsZero(), len(c.lights)
	c.readAt, c.err = r.at, r.err
	out := readOutcome{first: first}
	out.health = (r.err == nil) != (wasErr == nil) || apiErrorType(r.err) != apiErrorType(wasErr)
	if r.err != nil {
		if out.health {
			out.wake = c.allWatchersLocked()
		}
		return out
	}
	c.contactAt = r.at
	if wasErr != nil {
		c.configRead = false // back: its config may have changed meanwhile
	}
	c.lights = indexLights(r.lights)
	out.count = len(r.lights) != count
	if wasErr != nil || first {
		out.wake = c.allWatchersLocked()
	} else {
		out.wake = c.driftedLocked()
	}
	return out
}

// current returns the lights and the last read's error, and whether that
// read is younger than maxAge.
func (c *cache) current(maxAge time.Duration) (lightsByID, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := !c.readAt.IsZero() && time.Since(c.readAt) < maxAge
	return c.lights, c.err, fresh
}

// health is the bridge's health as the last read saw it.
func (c *cache) health() bridgeHealth {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bridgeHealth{err: c.err, lastContact: c.contactAt, lightCount: len(c.lights)}
}

// accepted records a state the bridge accepted for some lights (one light
// command, or a group command), so the next Observe does not see drift
// before the next read.
func (c *cache) accepted(body StateBody, lightIDs ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := maps.Clone(c.lights)
	for _, id := range lightIDs {
		if l, ok := next[id]; ok {
			l.State = l.State.applied(body)
			next[id] = l
		}
	}
	c.lights = next
}

func (c *cache) needsConfig() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.configRead
}

func (c *cache) markConfigRead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.configRead = true
}

// watch records what a HueLight wants of its bulb.
func (c *cache) watch(key types.NamespacedName, w watch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchers[key] = w
}

// unwatch stops waking a HueLight on drift.
func (c *cache) unwatch(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.watchers, key)
}

// wantedBodies returns, per light id, the whole state its watching HueLight
// wants (to tell whether group 0 would change a bulb nobody asked to).
func (c *cache) wantedBodies() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.watchers))
	for _, w := range c.watchers {
		if w.lightID != "" {
			out[w.lightID] = FullBody(w.want).key()
		}
	}
	return out
}

// lightIDs lists the bridge's lights as of the last read.
func (c *cache) lightIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Collect(maps.Keys(c.lights))
}

func (c *cache) allWatchersLocked() []types.NamespacedName {
	return slices.Collect(maps.Keys(c.watchers))
}

// driftedLocked lists the HueLights whose bulb differs from what they want.
func (c *cache) driftedLocked() []types.NamespacedName {
	var out []types.NamespacedName
	for k, w := range c.watchers {
		if w.lightID == "" {
			if _, found := c.lights.byName(w.name); found {
				out = append(out, k)
			}
			continue
		}
		l, ok := c.lights[w.lightID]
		if !ok || l.State.Reachable != w.reachable || (l.State.Reachable && Compare(w.want, l.State) != nil) {
			out = append(out, k)
		}
	}
	return out
}

// bridgeHealth is what the last read says of the bridge: whether it answers
// (and accepts the username), when it last did, and how many lights it has.
// The HueBridge reports it instead of reading /config each resync, so a
// bridge costs one read per poll interval.
type bridgeHealth struct {
	err         error
	lastContact time.Time
	lightCount  int
}

// lightsByID indexes a read.
type lightsByID map[string]Light

func indexLights(lights []Light) lightsByID {
	out := make(lightsByID, len(lights))
	for _, l := range lights {
		out[l.ID] = l
	}
	return out
}

// byName finds the bulb whose name is exactly name.
func (m lightsByID) byName(name string) (Light, bool) {
	for _, l := range m {
		if l.Name == name {
			return l, true
		}
	}
	return Light{}, false
}

// names lists the bulbs' names, sorted, for "not found" messages.
func (m lightsByID) names() []string {
	out := make([]string, 0, len(m))
	for _, l := range m {
		out = append(out, strconv.Quote(l.Name))
	}
	sort.Strings(out)
	return out
}

// applied returns the state as it is after the bridge accepted body.
func (s LightState) applied(body StateBody) LightState {
	if body.On != nil {
		s.On = *body.On
	}
	if body.Bri != nil {
		s.Bri = body.Bri
	}
	switch {
	case body.XY != nil:
		s.XY, s.ColorMode = body.XY, "xy"
	case body.CT != nil:
		s.CT, s.ColorMode = body.CT, "ct"
	case body.Hue != nil:
		s.Hue, s.ColorMode = body.Hue, "hs"
		if body.Sat != nil {
			s.Sat = body.Sat
		}
	}
	return s
}

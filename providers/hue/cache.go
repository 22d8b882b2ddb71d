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
// what the bridge answered to commands since (accepted and refused
// attributes), the bridge's health as that read saw it, and what each
// HueLight wants of its bulb (to tell drift). It makes no call: reads come
// from whoever produces them (the session's poll loop on v1; an event
// stream can feed the same apply), and it answers with the HueLights to
// wake.
type cache struct {
	mu        sync.Mutex
	lights    lightsByID // the last read; replaced, never changed in place
	records   map[string]*lightRecord
	err       error
	readAt    time.Time // last read, answered or not
	contactAt time.Time // last read the bridge answered
	// configRead is set once the HueBridge read /config through this
	// session, and cleared when the bridge comes back after failing reads.
	configRead bool
	watchers   map[types.NamespacedName]watch
	// noAnswer is set when a read or a command found the bridge not
	// answering (no connection, or no answer in time), and cleared by the
	// next read it answers; back is closed then. Meanwhile the sender
	// holds its commands.
	noAnswer bool
	back     chan struct{}
}

// watch is what the cache knows of one HueLight to decide if it drifted.
type watch struct {
	name      string // spec.name, to wake a HueLight whose bulb appears
	lightID   string
	want      Desired // projected onto the bulb
	reachable bool
}

// lightRecord is what a bridge answered to commands for one light.
type lightRecord struct {
	// accepted holds the attributes the bridge accepted that no read has
	// shown since. A read after the command replaces those it reports;
	// those it never reports stay, as the best knowledge there is.
	accepted   StateBody
	acceptedAt time.Time
	// readSince: a read of the light came after the last acceptance. Until
	// then an accepted attribute the last read did not show is unconfirmed,
	// not unreported: a CLIP v2 bridge reports no colour temperature for a
	// bulb in xy mode (mirek null, hue-bulbs-facts.md), and shows it once
	// the bulb has switched to it.
	readSince bool
	// confirmed counts the reads that showed what the bridge had accepted:
	// writes with a visible effect.
	confirmed uint64
	// refused holds the attributes the bridge refused, by parameter.
	refused map[string]refusal
}

// refusal is an attribute a bridge refused, with the value sent.
type refusal struct {
	Refusal
	value string // the value sent, as JSON
	model string // the bulb it was refused for
}

// lightView is a light as Tether knows it: the last read with what the
// bridge accepted since.
type lightView struct {
	Light
	// unconfirmed: an accepted attribute the bridge reports has not been
	// read back yet.
	unconfirmed bool
	// assumed are attributes the bridge does not report for this bulb,
	// known only from what it accepted.
	assumed []string
	refused map[string]refusal
	// confirmed counts the writes a read showed (see lightRecord).
	confirmed uint64
}

// read is one full read of the bridge's lights.
type read struct {
	lights []Light
	err    error
	at     time.Time
	// lightAt, when set, is as of when each light was read (an event
	// stream hears of each light at its own time): a command the bridge
	// accepted after that is not taken as read back.
	lightAt map[string]time.Time
	// full: everything was read (not only what an event named).
	full bool
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
	return &cache{watchers: map[types.NamespacedName]watch{}, records: map[string]*lightRecord{}}
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
	c.setNoAnswerLocked(isNetwork(r.err))
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
	c.reconcileRecordsLocked(r)
	out.count = len(r.lights) != count
	if wasErr != nil || first {
		out.wake = c.allWatchersLocked()
	} else {
		out.wake = c.driftedLocked()
	}
	return out
}

// reconcileRecordsLocked takes a read into the lights' records:
// it replaces the accepted attributes the bridge reports, forgets a bulb's
// refusals when it is another model now, and refusals of a bulb that was
// off (error 201) once it is on.
func (c *cache) reconcileRecordsLocked(rd read) {
	for id, r := range c.records {
		l, ok := c.lights[id]
		if !ok {
			delete(c.records, id)
			continue
		}
		at := rd.at
		if t, ok := rd.lightAt[id]; ok {
			at = t
		}
		if at.After(r.acceptedAt) {
			r.readSince = true
			shown := reported(l.State)
			if seen := r.accepted.only(shown...); len(seen.params()) > 0 && l.State.shows(seen, l.Capabilities.Gamut) {
				r.confirmed++
			}
			r.accepted = r.accepted.without(shown...)
		}
		for p, ref := range r.refused {
			if ref.model != l.ModelID || (ref.Type == errDeviceOff && l.State.On) {
				delete(r.refused, p)
			}
		}
	}
}

// reported lists the attributes a state reports.
func reported(st LightState) []string {
	out := []string{"on"}
	for p, v := range map[string]bool{"bri": st.Bri != nil, "hue": st.Hue != nil, "sat": st.Sat != nil,
		"xy": st.XY != nil, "ct": st.CT != nil} {
		if v {
			out = append(out, p)
		}
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

// unanswered records that a command found the bridge not answering, when
// err says so: no more commands go until a read finds it answering.
func (c *cache) unanswered(err error) {
	if !isNetwork(err) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setNoAnswerLocked(true)
}

func (c *cache) setNoAnswerLocked(no bool) {
	c.noAnswer = no
	if !no && c.back != nil {
		close(c.back)
		c.back = nil
	}
}

// answering reports whether the bridge answers, as far as the session
// knows; when it does not, back is closed once a read finds it answering
// again.
func (c *cache) answering() (ok bool, back <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.noAnswer {
		return true, nil
	}
	if c.back == nil {
		c.back = make(chan struct{})
	}
	return false, c.back
}

// health is the bridge's health as the last read saw it.
func (c *cache) health() bridgeHealth {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bridgeHealth{err: c.err, lastContact: c.contactAt, lightCount: len(c.lights)}
}

// answered records the bridge's answer to a command (one light command, or
// a group command to lightIDs): what it accepted counts until a read shows
// the bulb, what it refused is remembered with the value sent.
func (c *cache) answered(sent StateBody, res Result, lightIDs ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for _, id := range lightIDs {
		r := c.records[id]
		if r == nil {
			r = &lightRecord{refused: map[string]refusal{}}
			c.records[id] = r
		}
		r.accepted, r.acceptedAt = r.accepted.merged(res.Accepted.without("transitiontime")), now
		r.readSince = false
		for _, p := range res.Accepted.params() {
			delete(r.refused, p)
		}
		for _, ref := range res.Refused {
			r.refused[ref.Param] = refusal{Refusal: ref, value: sent.value(ref.Param), model: c.lights[id].ModelID}
		}
	}
}

// view is a light as Tether knows it now.
func (c *cache) view(id string) (lightView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.viewLocked(id)
}

func (c *cache) viewLocked(id string) (lightView, bool) {
	l, ok := c.lights[id]
	if !ok {
		return lightView{}, false
	}
	v := lightView{Light: l}
	r := c.records[id]
	if r == nil {
		return v, true
	}
	v.refused, v.confirmed = r.refused, r.confirmed
	shown := map[string]bool{}
	for _, p := range reported(l.State) {
		shown[p] = true
	}
	for _, p := range r.accepted.params() {
		switch {
		case p == "transitiontime":
		case shown[p] || !r.readSince:
			v.unconfirmed = true
		default:
			v.assumed = append(v.assumed, p)
		}
	}
	v.State = l.State.applied(r.accepted)
	return v, true
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
			out[w.lightID] = FullBody(c.withoutRefusedLocked(w.lightID, w.want)).key()
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
		v, ok := c.viewLocked(w.lightID)
		if !ok || v.State.Reachable != w.reachable ||
			(v.State.Reachable && Compare(c.withoutRefusedLocked(w.lightID, w.want), v.State) != nil) {
			out = append(out, k)
		}
	}
	return out
}

// withoutRefusedLocked leaves out of want the attributes the bridge refused
// for the light with the very value want has: they are not sent again
// unchanged.
func (c *cache) withoutRefusedLocked(id string, want Desired) Desired {
	if r := c.records[id]; r != nil {
		want, _ = withoutRefused(want, r.refused)
	}
	return want
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

// shows reports whether the state shows every attribute of body it
// reports, at the bridge's precision (hue/sat as the colour they make on a
// bulb of gamut g, hsxy.go).
func (s LightState) shows(body StateBody, g *Gamut) bool {
	match := func(got, want *int) bool { return want == nil || got == nil || *got == *want }
	hs := match(s.Hue, body.Hue) && match(s.Sat, body.Sat)
	if body.Hue != nil && body.Sat != nil && (s.Hue != nil || s.XY != nil) {
		hs = showsHueSat(*body.Hue, *body.Sat, s, g)
	}
	return (body.On == nil || *body.On == s.On) && match(s.Bri, body.Bri) && hs &&
		match(s.CT, body.CT) && (body.XY == nil || s.XY == nil || near(*s.XY, *body.XY))
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

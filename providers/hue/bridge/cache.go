package bridge

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// cache is what Tether knows of one bridge's lights: the last full read,
// what the bridge answered to commands since (accepted and refused
// attributes), the bridge's health as that read saw it, and what each
// HueLight wants of its bulb (to tell drift). It makes no call: reads come
// from whoever produces them (the session's poll loop on v1; an event
// stream can feed the same apply), and it answers with the HueLights to
// wake.
type cache struct {
	mu      sync.Mutex
	lights  Lights // the last read; replaced, never changed in place
	records map[string]*lightRecord
	// lightAt is when each light was last read (a poll's start, or the
	// event that last told of it).
	lightAt   map[string]time.Time
	err       error
	readAt    time.Time // last read, answered or not
	contactAt time.Time // last read the bridge answered
	// configRead is set once the HueBridge read /config through this
	// session, and cleared when the bridge comes back after failing reads.
	configRead bool
	watchers   map[types.NamespacedName]Want
	// noAnswer is set when a read or a command found the bridge not
	// answering (no connection, or no answer in time), and cleared by the
	// next read it answers; back is closed then. Meanwhile the sender
	// holds its commands.
	noAnswer bool
	back     chan struct{}
	// readBack is when a read should show what the bridge last accepted
	// (zero: none asked for); readBackKick tells the session's read-back
	// loop that it moved.
	readBack     time.Time
	readBackKick chan struct{}
}

// Want is what a HueLight wants of its bulb, to tell drift: the spec
// projected onto the bulb, and whether the bulb was reachable. A Want with
// a Name and no LightID wakes the HueLight once a bulb of that name
// appears.
type Want struct {
	Name      string
	LightID   string
	Desired   model.Desired
	Reachable bool
}

// lightRecord is what a bridge answered to commands for one light.
type lightRecord struct {
	// accepted holds the attributes the bridge accepted that no read has
	// shown since. A read after the command replaces those it reports;
	// those it never reports stay, as the best knowledge there is.
	accepted   model.StateBody
	acceptedAt time.Time
	// settledAt is when the write's transition is over (model.SettleTime): a
	// read before it that does not show the write contradicts nothing.
	settledAt time.Time
	// readSince: a read of the light came after the last acceptance. Until
	// then an accepted attribute the last read did not show is unconfirmed,
	// not unreported: a CLIP v2 bridge reports no colour temperature for a
	// bulb in xy mode (mirek null: openhab-addons issue 16482, aiohue's
	// fixture; docs/hue-behaviour.md), and shows it once the bulb has switched
	// to it.
	readSince bool
	// confirmed counts the reads that showed what the bridge had accepted:
	// writes with a visible effect.
	confirmed uint64
	// refused holds the attributes the bridge refused, by parameter.
	refused map[string]refusal
}

// refusal is an attribute a bridge refused, with the value sent, for the
// bulb model it was refused for: another bulb under the id may take it.
type refusal struct {
	model.Refused
	model string
}

// LightView is a light as Tether knows it: the last read with what the
// bridge accepted since, what it refused and what it does not report
// (model.Known), and how far reads confirmed what it accepted.
type LightView struct {
	model.Known
	// Unconfirmed: an accepted attribute the bridge reports has not been
	// read back yet.
	Unconfirmed bool
	// Confirmed counts the writes a read showed (see lightRecord).
	Confirmed uint64
	// AcceptedAt is when the bridge accepted the write an Unconfirmed view
	// rests on.
	AcceptedAt time.Time
}

// readBackMargin is how long after a command it is first read back, and
// after its transition (when that read did not show it) again.
const readBackMargin = 100 * time.Millisecond

// readOutcome is what a read changed.
type readOutcome struct {
	// wake are the HueLights to wake: every one (everyone) when the
	// bridge's health changed or on its first read, otherwise those whose
	// bulb drifted, became (un)reachable, vanished or appeared.
	wake     []types.NamespacedName
	everyone bool
	// readBack are the HueLights whose bulb this read is the first to show
	// since the bridge accepted a write to it: their write is confirmed
	// (or contradicted), and their status can say so in one write.
	readBack []types.NamespacedName
	// readBackLights are the ids of those bulbs, for the HueGroups.
	readBackLights map[string]bool
	// health is true when the bridge started or stopped answering (or
	// answers with another error), count when its number of lights changed:
	// both wake the HueBridge.
	health, count bool
	first         bool
}

func newCache() *cache {
	return &cache{watchers: map[types.NamespacedName]Want{}, records: map[string]*lightRecord{}, lightAt: map[string]time.Time{}, readBackKick: make(chan struct{}, 1)}
}

// apply takes a read and returns the HueLights to wake: all of them when the
// bridge's health changed (or on the first read), otherwise those whose
// bulb drifted, became (un)reachable, vanished or appeared.
func (c *cache) apply(r wire.Read, err error) readOutcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	wasErr, first, count := c.err, c.readAt.IsZero(), len(c.lights)
	c.readAt, c.err = r.At, err
	out := readOutcome{first: first}
	out.health = (err == nil) != (wasErr == nil) || wire.ErrorType(err) != wire.ErrorType(wasErr)
	c.setNoAnswerLocked(bridgeSilent(err))
	if err != nil {
		if out.health {
			out.wake, out.everyone = c.allWatchersLocked(), true
		}
		return out
	}
	c.contactAt = r.At
	if wasErr != nil {
		c.configRead = false // back: its config may have changed meanwhile
	}
	c.lights = indexLights(r.Lights)
	c.lightAt = make(map[string]time.Time, len(c.lights))
	for id := range c.lights {
		at := r.At
		if t, ok := r.LightAt[id]; ok {
			at = t
		}
		c.lightAt[id] = at
	}
	readBack := c.reconcileRecordsLocked()
	c.askReadBackOfUnsettledLocked()
	out.count = len(r.Lights) != count
	if wasErr != nil || first {
		out.wake, out.everyone = c.allWatchersLocked(), true
	} else {
		out.wake = c.driftedLocked()
		out.readBack, out.readBackLights = c.watchersOfLocked(readBack, out.wake), readBack
	}
	return out
}

// watchersOfLocked returns the HueLights watching the lights ids, but for
// those in skip (already woken).
func (c *cache) watchersOfLocked(ids map[string]bool, skip []types.NamespacedName) []types.NamespacedName {
	var out []types.NamespacedName
	for k, w := range c.watchers {
		if ids[w.LightID] && !slices.Contains(skip, k) {
			out = append(out, k)
		}
	}
	return out
}

// reconcileRecordsLocked takes a read into the lights' records:
// it replaces the accepted attributes the bridge reports, forgets a bulb's
// refusals when it is another model now, and refusals of a bulb that was
// off (error 201) once it is on. It returns the lights this read is the
// first to show since a write was accepted.
func (c *cache) reconcileRecordsLocked() map[string]bool {
	readBack := map[string]bool{}
	for id, r := range c.records {
		l, ok := c.lights[id]
		if !ok {
			delete(c.records, id)
			continue
		}
		if at := c.lightAt[id]; at.After(r.acceptedAt) && (!at.Before(r.settledAt) || r.shownBy(l)) && r.read(l) {
			readBack[id] = true
		}
		for p, ref := range r.refused {
			if ref.model != l.ModelID || (ref.Type == wire.TypeDeviceOff && l.State.On) {
				delete(r.refused, p)
			}
		}
	}
	return readBack
}

// shownBy reports whether the light, as read, shows every accepted
// attribute it reports (at least one).
func (r *lightRecord) shownBy(l model.Light) bool {
	seen := r.accepted.Only(model.Reported(l.State)...)
	return len(seen.Params()) > 0 && l.State.Shows(seen, l.Capabilities.Gamut)
}

// read takes a read of the light, made after the last write to it was
// accepted, into the record: the accepted attributes the bridge reports
// are replaced by what it shows, and counted as confirmed when they show.
// It reports whether this was the first read since that write.
func (r *lightRecord) read(l model.Light) (first bool) {
	first = !r.readSince && len(r.accepted.Params()) > 0
	r.readSince = true
	shown := model.Reported(l.State)
	if seen := r.accepted.Only(shown...); len(seen.Params()) > 0 && l.State.Shows(seen, l.Capabilities.Gamut) {
		r.confirmed++
	}
	r.accepted = r.accepted.Without(shown...)
	return first
}

// current returns the lights and the last read's error, and whether that
// read is younger than maxAge.
func (c *cache) current(maxAge time.Duration) (Lights, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := !c.readAt.IsZero() && time.Since(c.readAt) < maxAge
	return c.lights, c.err, fresh
}

// unanswered records that a command found the bridge not answering, when
// err says so: no more commands go until a read finds it answering.
func (c *cache) unanswered(err error) {
	if !bridgeSilent(err) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setNoAnswerLocked(true)
}

// bridgeSilent reports whether err says the bridge did not answer: a
// connection failure or a timeout. A call the session gave up on itself
// (its context cancelled as it stops) says nothing of the bridge, and must
// not keep the stopping session's last deletions (runGroups) from going.
func bridgeSilent(err error) bool {
	return wire.IsNetwork(err) && !errors.Is(err, context.Canceled)
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
func (c *cache) health() Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Health{Err: c.err, LastContact: c.contactAt, LightCount: len(c.lights)}
}

// answered records the bridge's answer to a command (one light command, or
// a group command to lightIDs) sent at sentAt: what it accepted counts
// until a read made after the answer shows the bulb, what it refused is
// remembered with the value sent. A read between sentAt and the answer (a
// CLIP v2 bridge's event for the change can arrive before its answer) may
// show the bulb before or after the command: it confirms the write when it
// shows it, and contradicts nothing.
func (c *cache) answered(sentAt time.Time, sent model.StateBody, res wire.Result, lightIDs ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range lightIDs {
		r := c.records[id]
		if r == nil {
			r = &lightRecord{refused: map[string]refusal{}}
			c.records[id] = r
		}
		now := time.Now()
		r.accepted, r.acceptedAt = r.accepted.Merged(res.Accepted.Without("transitiontime")), now
		r.settledAt, r.readSince = now.Add(model.SettleTime(sent)), false
		for _, p := range res.Accepted.Params() {
			delete(r.refused, p)
		}
		for _, ref := range res.Refused {
			r.refused[ref.Param] = refusal{Refused: model.Refused{Type: ref.Type, Description: ref.Description, Value: sent.Value(ref.Param)},
				model: c.lights[id].ModelID}
		}
		if l, ok := c.lights[id]; ok && c.lightAt[id].After(sentAt) && r.shownBy(l) {
			r.read(l)
		}
	}
	if len(res.Accepted.Params()) > 0 && len(lightIDs) > 0 {
		c.askReadBackLocked(time.Now().Add(readBackMargin))
	}
}

// askReadBackOfUnsettledLocked asks for a read once the transition of the
// earliest write no read has shown yet is over: a read during a transition
// that did not show the write decides nothing.
func (c *cache) askReadBackOfUnsettledLocked() {
	var due time.Time
	for _, r := range c.records {
		if !r.readSince && len(r.accepted.Params()) > 0 && (due.IsZero() || r.settledAt.Before(due)) {
			due = r.settledAt
		}
	}
	if !due.IsZero() {
		c.askReadBackLocked(due.Add(readBackMargin))
	}
}

// askReadBackLocked asks for a read by due: the earliest asked for wins.
func (c *cache) askReadBackLocked(due time.Time) {
	if !c.readBack.IsZero() && !due.Before(c.readBack) {
		return
	}
	c.readBack = due
	select {
	case c.readBackKick <- struct{}{}:
	default:
	}
}

// readBackDue is when a read-back is asked for, if one is.
func (c *cache) readBackDue() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readBack, !c.readBack.IsZero()
}

// takeReadBack clears the read-back asked for when it is due by now, and
// reports whether it did: a write accepted after that is asked for anew.
func (c *cache) takeReadBack(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readBack.IsZero() || c.readBack.After(now) {
		return false
	}
	c.readBack = time.Time{}
	return true
}

// view is a light as Tether knows it now.
func (c *cache) view(id string) (LightView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.viewLocked(id)
}

func (c *cache) viewLocked(id string) (LightView, bool) {
	l, ok := c.lights[id]
	if !ok {
		return LightView{}, false
	}
	v := LightView{Known: model.Known{Light: l}}
	r := c.records[id]
	if r == nil {
		return v, true
	}
	v.Refused, v.Confirmed = r.refusedByParam(), r.confirmed
	shown := model.Reported(l.State) // a few names: a map would cost more
	for _, p := range r.accepted.Params() {
		switch {
		case p == "transitiontime":
		case slices.Contains(shown, p) || !r.readSince:
			v.Unconfirmed, v.AcceptedAt = true, r.acceptedAt
		default:
			v.Assumed = append(v.Assumed, p)
		}
	}
	v.State = l.State.Applied(r.accepted)
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
func (c *cache) watch(key types.NamespacedName, w Want) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchers[key] = w
}

// bulbs is how many lights the bridge had at the last read.
func (c *cache) bulbs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lights)
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
		if w.LightID != "" {
			out[w.LightID] = model.FullBody(c.withoutRefusedLocked(w.LightID, w.Desired)).Key()
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
		if w.LightID == "" {
			if _, found := c.lights.ByName(w.Name); found {
				out = append(out, k)
			}
			continue
		}
		v, ok := c.viewLocked(w.LightID)
		if !ok || v.State.Reachable != w.Reachable ||
			(v.State.Reachable && model.Compare(c.withoutRefusedLocked(w.LightID, w.Desired), v.State) != nil) {
			out = append(out, k)
		}
	}
	return out
}

// withoutRefusedLocked leaves out of want the attributes the bridge refused
// for the light with the very value want has: they are not sent again
// unchanged.
func (c *cache) withoutRefusedLocked(id string, want model.Desired) model.Desired {
	if r := c.records[id]; r != nil {
		want, _ = model.WithoutRefused(want, r.refusedByParam())
	}
	return want
}

// refusedByParam is what the bridge refused for the light, by parameter.
func (r *lightRecord) refusedByParam() map[string]model.Refused {
	out := make(map[string]model.Refused, len(r.refused))
	for p, ref := range r.refused {
		out[p] = ref.Refused
	}
	return out
}

// Health is what the last read says of the bridge: whether it answers
// (and accepts the username), when it last did, and how many lights it has.
// The HueBridge reports it instead of reading /config each resync, so a
// bridge costs one read per poll interval.
type Health struct {
	Err         error
	LastContact time.Time
	LightCount  int
}

// Lights indexes a read.
type Lights map[string]model.Light

func indexLights(lights []model.Light) Lights {
	out := make(Lights, len(lights))
	for _, l := range lights {
		out[l.ID] = l
	}
	return out
}

// ByName finds the bulb whose name is exactly name.
func (m Lights) ByName(name string) (model.Light, bool) {
	for _, l := range m {
		if l.Name == name {
			return l, true
		}
	}
	return model.Light{}, false
}

// Names lists the bulbs' names, sorted, for "not found" messages.
func (m Lights) Names() []string {
	out := make([]string, 0, len(m))
	for _, l := range m {
		out = append(out, strconv.Quote(l.Name))
	}
	sort.Strings(out)
	return out
}

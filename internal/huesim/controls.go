package huesim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// The methods below are the test controls: what a person at home (or the
// network) would do to the bridge. The HTTP control API in controlapi.go
// exposes the same to out-of-process tests and the demo.

// PressLinkButton opens the pairing window (30 s by default).
func (b *Bridge) PressLinkButton() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.linkUntil = time.Now().Add(b.opts.LinkWindow)
}

// SetDelay makes every API answer wait d (0: answer at once).
func (b *Bridge) SetDelay(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conn.delay = d
}

// SetRate changes the light-command budget.
func (b *Bridge) SetRate(perSecond float64, burst int) {
	b.limits.setRate(perSecond, burst)
}

// SetGroupRate changes the group-command budget (1/s, burst 2 by default);
// math.Inf(1) lifts it, for tests of something else than that budget.
func (b *Bridge) SetGroupRate(perSecond float64, burst int) {
	b.limits.setGroupRate(perSecond, burst)
}

// SetReachable makes the bridge report the bulb reachable or not.
func (b *Bridge) SetReachable(id string, reachable bool) error {
	return b.ChangeLight(id, func(st *LightState) { st.Reachable = reachable })
}

// ChangeLight changes a bulb as the Hue app or a wall switch would: no
// rules, no rate limit, nothing in the command log.
// Those watching hand changes (OnHandChange) hear of it with the state
// before and after.
func (b *Bridge) ChangeLight(id string, change func(*LightState)) error {
	defer b.notify()
	b.mu.Lock()
	l, ok := b.lights[id]
	if !ok {
		b.mu.Unlock()
		return fmt.Errorf("no light %q", id)
	}
	hc := HandChange{LightID: id, Name: l.Name, Before: l.State, At: time.Now()}
	change(&l.State)
	hc.After = l.State
	b.mu.Unlock()
	b.watch.handChanged(hc)
	return nil
}

// Light returns a copy of a bulb.
func (b *Bridge) Light(id string) (Light, bool) {
	defer b.lockView()()
	l, ok := b.lights[id]
	if !ok {
		return Light{}, false
	}
	return *l, true
}

// LightByName returns a copy of the bulb with that name.
func (b *Bridge) LightByName(name string) (Light, bool) {
	defer b.lockView()()
	for _, l := range b.lights {
		if l.Name == name {
			return *l, true
		}
	}
	return Light{}, false
}

// Lights returns copies of all bulbs by id.
func (b *Bridge) Lights() map[string]Light {
	defer b.lockView()()
	out := make(map[string]Light, len(b.lights))
	for id, l := range b.lights {
		out[id] = *l
	}
	return out
}

// AddLight adds a bulb of DefaultModel (as a "search for new lights" would)
// and returns its id.
func (b *Bridge) AddLight(name string) string { return b.AddLightModel(name, DefaultModel) }

// AddLightModel adds a bulb of a model of Models and returns its id.
func (b *Bridge) AddLightModel(name, model string) string {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	next := 1
	for id := range b.lights {
		if n, _ := strconv.Atoi(id); n >= next {
			next = n + 1
		}
	}
	id := strconv.Itoa(next)
	b.lights[id] = newLight(id, name, model)
	return id
}

// RefuseOutOfRange makes a bulb refuse a colour temperature beyond its
// range with error 7 (invalid value) instead of clamping it. CLIP v2
// bridges refuse such values (home-assistant/core #61584); whether a v1
// bridge ever does is unconfirmed, which is why it is a control and not a
// model's default.
func (b *Bridge) RefuseOutOfRange(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[id]
	if !ok {
		return fmt.Errorf("no light %q", id)
	}
	l.strict = true
	return nil
}

// OmitState makes GET /lights leave the state fields keys out for a bulb,
// as some bridges do although the bulb has them.
func (b *Bridge) OmitState(id string, keys ...string) error {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[id]
	if !ok {
		return fmt.Errorf("no light %q", id)
	}
	l.omit = map[string]bool{}
	for _, k := range keys {
		l.omit[k] = true
	}
	return nil
}

// RemoveLight deletes a bulb from the bridge.
func (b *Bridge) RemoveLight(id string) {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.lights, id)
	for _, g := range b.groups {
		g.Lights = slices.DeleteFunc(g.Lights, func(l string) bool { return l == id })
	}
}

// Commands returns the log of state-changing requests received.
func (b *Bridge) Commands() []Command {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Command(nil), b.commands...)
}

// ResetCommands empties the command log.
func (b *Bridge) ResetCommands() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.commands = nil
}

// Overloads counts the commands refused with error 901 since the last reset.
func (b *Bridge) Overloads() int {
	n := 0
	for _, c := range b.Commands() {
		for _, e := range c.Errors {
			if e == ErrInternal {
				n++
			}
		}
	}
	return n
}

// GetCounts returns how many GETs each resource path (/lights, /config,
// /lights/1) received since the last reset.
func (b *Bridge) GetCounts() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.gets)
}

// ResetGetCounts zeroes the GET counters.
func (b *Bridge) ResetGetCounts() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gets = map[string]int{}
}

// patchLight merges a partial state JSON object into a bulb's state.
func (b *Bridge) patchLight(id string, raw []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return err
	}
	var err error
	cerr := b.ChangeLight(id, func(st *LightState) { err = json.Unmarshal(raw, st) })
	if cerr != nil {
		return cerr
	}
	return err
}

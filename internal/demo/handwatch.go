package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/huesim"
)

// handWatch puts on the timeline, as one entry, a bulb changed by hand (the
// page's Hue app control, the walkthrough's curl, a test), the moment the
// bridge pushed that change (its CLIP v2 event stream: how Tether hears of
// it without polling) and the moment the bridge shows it changed back:
// the control loop as the audience sees it on the bulb.
type handWatch struct {
	bridge   *huesim.Bridge
	timeline *timeline

	mu sync.Mutex
	// pending is, per bulb id, the last hand change nothing has undone yet.
	pending map[string]*pendingHand
}

// pendingHand is a hand change on the timeline (entry seq) waiting for its
// push and its correction.
type pendingHand struct {
	huesim.HandChange
	seq      int
	pushedAt time.Time
	// putBack: the bulb shows the correction already. The bridge hands a
	// message to its streams before it reports the push (OnPush), so
	// Tether may correct the bulb before the push is reported: the entry
	// then waits for that report.
	putBack bool
}

func watchHandChanges(ctx context.Context, bridge *huesim.Server, tl *timeline) {
	w := &handWatch{bridge: bridge.Bridge, timeline: tl, pending: map[string]*pendingHand{}}
	// Subscribe first: a put-back that follows at once still wakes us.
	changed, unsubscribe := bridge.Subscribe()
	bridge.OnHandChange(w.handChanged)
	bridge.OnPush(w.pushed)
	go func() {
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
				w.checkPutBacks(time.Now())
			}
		}
	}()
}

// handChanged runs on the changer's goroutine, before the bridge wakes its
// subscribers.
func (w *handWatch) handChanged(c huesim.HandChange) {
	words := stateChange(c.Before, c.After)
	if words == "" {
		return // only reachability: not a change a person makes
	}
	seq := w.timeline.add(entry{Time: c.At, Source: "hand", Reason: "ChangedByHand",
		Text: fmt.Sprintf("%s changed by hand (Hue app): %s", c.Name, words), Loop: &loop{Light: c.Name}})
	w.mu.Lock()
	w.pending[c.LightID] = &pendingHand{HandChange: c, seq: seq}
	w.mu.Unlock()
}

// pushed runs when the bridge sent an event stream message: a pending
// hand change of a bulb it carries has reached Tether's side of the loop.
func (w *handWatch) pushed(p huesim.Push) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, c := range w.pending {
		if !c.pushedAt.IsZero() || !slices.Contains(p.LightIDs, id) || p.At.Before(c.At) {
			continue
		}
		c.pushedAt = p.At
		ms := millis(p.At.Sub(c.At))
		w.timeline.update(c.seq, func(e *entry) { e.Loop.PushedMS = &ms })
		if c.putBack {
			delete(w.pending, id)
		}
	}
}

// checkPutBacks ends each pending hand change whose bulb shows something
// else now: only the bridge's API changes bulbs besides hands, so that is
// Tether's correction.
func (w *handWatch) checkPutBacks(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, c := range w.pending {
		if c.putBack {
			continue
		}
		l, ok := w.bridge.Light(id)
		if !ok {
			delete(w.pending, id)
			continue
		}
		words := stateChange(c.After, l.State)
		if words == "" {
			continue
		}
		c.putBack = true
		if !c.pushedAt.IsZero() {
			delete(w.pending, id)
		}
		took := millis(now.Sub(c.At))
		w.timeline.update(c.seq, func(e *entry) { e.Loop.TookMS, e.Loop.PutBack = &took, words })
	}
}

// millis is a duration in milliseconds, to a tenth.
func millis(d time.Duration) float64 { return float64(d.Microseconds()/100) / 10 }

// stateChange words what differs between two states of a bulb, in the
// Hue app's terms; "" when nothing a person sees differs.
func stateChange(a, b huesim.LightState) string {
	var parts []string
	if a.On != b.On {
		parts = append(parts, fmt.Sprintf("%s → %s", onOff(a.On), onOff(b.On)))
	}
	if a.Bri != b.Bri {
		parts = append(parts, fmt.Sprintf("brightness %d → %d", a.Bri, b.Bri))
	}
	if colour(a) != colour(b) {
		parts = append(parts, fmt.Sprintf("colour %s → %s", colour(a), colour(b)))
	}
	if effect(a) != effect(b) {
		parts = append(parts, fmt.Sprintf("effect %s → %s", effect(a), effect(b)))
	}
	return strings.Join(parts, ", ")
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// effect is the CLIP v2 effect the bulb plays, "none" for none.
func effect(s huesim.LightState) string {
	if s.V2Effect == "" || s.V2Effect == "no_effect" {
		return "none"
	}
	return s.V2Effect
}

func colour(s huesim.LightState) string {
	switch s.ColorMode {
	case "xy":
		return fmt.Sprintf("xy [%.3g, %.3g]", s.XY[0], s.XY[1])
	case "ct":
		return fmt.Sprintf("ct %d", s.CT)
	case "hs":
		return fmt.Sprintf("hue/sat %d/%d", s.Hue, s.Sat)
	}
	return "none"
}

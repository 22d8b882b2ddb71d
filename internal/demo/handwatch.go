package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/huesim"
)

// handWatch puts on the timeline the moment a bulb is changed by hand (the
// page's Hue app control, the walkthrough's curl, a test) and the moment
// the bridge shows it changed back: the time the control loop took, as the
// audience sees it on the bulb.
type handWatch struct {
	bridge   *huesim.Server
	timeline *timeline

	mu sync.Mutex
	// pending is, per bulb id, the last hand change nothing has undone yet.
	pending map[string]huesim.HandChange
}

func watchHandChanges(ctx context.Context, bridge *huesim.Server, tl *timeline) {
	w := &handWatch{bridge: bridge, timeline: tl, pending: map[string]huesim.HandChange{}}
	// Subscribe first: a put-back that follows at once still wakes us.
	changed, unsubscribe := bridge.Subscribe()
	bridge.OnHandChange(w.handChanged)
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
	w.mu.Lock()
	w.pending[c.LightID] = c
	w.mu.Unlock()
	w.timeline.add(entry{Time: c.At, Source: "hand", Reason: "ChangedByHand",
		Text: fmt.Sprintf("%s changed by hand (Hue app): %s", c.Name, words)})
}

// checkPutBacks ends each pending hand change whose bulb shows something
// else now: only the bridge's API changes bulbs besides hands, so that is
// Tether's correction.
func (w *handWatch) checkPutBacks(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, c := range w.pending {
		l, ok := w.bridge.Light(id)
		if !ok {
			delete(w.pending, id)
			continue
		}
		words := stateChange(c.After, l.State)
		if words == "" {
			continue
		}
		delete(w.pending, id)
		took := now.Sub(c.At)
		w.timeline.add(entry{Time: now, Source: "putBack", Reason: "PutBack", TookMS: took.Milliseconds(),
			Text: fmt.Sprintf("%s put back in %s: %s", l.Name, seconds(took), words)})
	}
}

// seconds prints a correction time as the audience reads it: "2.17 s",
// or "3.4 ms" below a second (a push from a CLIP v2 bridge is corrected
// within milliseconds, which "0.00 s" would hide).
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// stateChange words what differs between two states of a bulb, in the
// Hue app's terms; "" when nothing a person sees differs.
func stateChange(a, b huesim.LightState) string {
	var parts []string
	if a.On != b.On {
		parts = append(parts, fmt.Sprintf("%s -> %s", onOff(a.On), onOff(b.On)))
	}
	if a.Bri != b.Bri {
		parts = append(parts, fmt.Sprintf("brightness %d -> %d", a.Bri, b.Bri))
	}
	if colour(a) != colour(b) {
		parts = append(parts, fmt.Sprintf("colour %s -> %s", colour(a), colour(b)))
	}
	return strings.Join(parts, ", ")
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
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

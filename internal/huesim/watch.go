package huesim

import (
	"sync"
	"time"
)

// watchers tells subscribers that the bridge changed. A notification
// carries no data: subscribers read a fresh snapshot, so a burst of
// changes coalesces into one wake-up and a slow reader (a browser on a bad
// network) never holds up the bridge or other readers.
type watchers struct {
	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	hand   []func(HandChange)
	pushes []func(Push)
}

// Push is one message of the CLIP v2 event stream as the bridge sent it to
// its streams' clients: the moment of the state it carries (a change made
// after that is in a later message), and the lights (by v1 id) whose state
// it carries.
type Push struct {
	At       time.Time
	LightIDs []string
}

// OnPush calls f after every event stream message sent to at least one
// client, on the stream's goroutine: f must not block or call back into
// the bridge's mutators.
func (b *Bridge) OnPush(f func(Push)) {
	b.watch.mu.Lock()
	defer b.watch.mu.Unlock()
	b.watch.pushes = append(b.watch.pushes, f)
}

func (w *watchers) pushed(p Push) {
	w.mu.Lock()
	pushes := w.pushes
	w.mu.Unlock()
	for _, f := range pushes {
		f(p)
	}
}

// HandChange is a bulb changed as by the Hue app or a wall switch
// (ChangeLight and the control API), not by a client of the bridge's API.
type HandChange struct {
	LightID, Name string
	Before, After LightState
	At            time.Time
}

// OnHandChange calls f after every hand change, on the changer's
// goroutine: f must not block or call back into the bridge's mutators.
func (b *Bridge) OnHandChange(f func(HandChange)) {
	b.watch.mu.Lock()
	defer b.watch.mu.Unlock()
	b.watch.hand = append(b.watch.hand, f)
}

func (w *watchers) handChanged(c HandChange) {
	w.mu.Lock()
	hand := w.hand
	w.mu.Unlock()
	for _, f := range hand {
		f(c)
	}
}

// Subscribe returns a channel that receives a value after every change to
// the bridge (light state, names, lights added or removed, offline/online)
// and a function that ends the subscription. Pending notifications are
// merged: read the bridge's state after each receive.
func (b *Bridge) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w := &b.watch
	w.mu.Lock()
	if w.subs == nil {
		w.subs = map[chan struct{}]struct{}{}
	}
	w.subs[ch] = struct{}{}
	w.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			w.mu.Lock()
			delete(w.subs, ch)
			w.mu.Unlock()
		})
	}
}

// notify wakes every subscriber without blocking. It takes only the
// watchers' lock, so mutators may call it while holding b.mu.
func (b *Bridge) notify() {
	w := &b.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending; it will see this change too
		}
	}
}

// subscribers counts live subscriptions (tests check that streams clean up).
func (b *Bridge) subscribers() int {
	b.watch.mu.Lock()
	defer b.watch.mu.Unlock()
	return len(b.watch.subs)
}

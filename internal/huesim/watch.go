package huesim

import "sync"

// watchers tells subscribers that the bridge changed. A notification
// carries no data: subscribers read a fresh snapshot, so a burst of
// changes coalesces into one wake-up and a slow reader (a browser on a bad
// network) never holds up the bridge or other readers.
type watchers struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
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

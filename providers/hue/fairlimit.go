package hue

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// fairLimiter hands out one bridge's command budget (a token bucket of
// burst 1, so Tether never bursts past the bridge's own bucket) across
// namespaces in turn: when 250 HueLights in one room and 250 in another are
// applied at once, both rooms light up together instead of one after the
// other.
//
// It never blocks a worker. A caller that may not send now is told how long
// to wait, from its place in the line, and asks again then; keys that do not
// come back in time (deleted, no longer drifted) drop out of the line.
type fairLimiter struct {
	mu       sync.Mutex
	bucket   *rate.Limiter
	interval time.Duration
	waiting  map[string]map[string]waiter // namespace -> key -> place
	served   map[string]int               // commands per namespace this busy period
	now      func() time.Time
}

type waiter struct {
	since   time.Time // first ask: the place in the namespace's line
	expires time.Time
}

// lineGrace is how late a waiting key may come back before losing its place.
const lineGrace = 2 * time.Second

func newFairLimiter(perSecond float64) *fairLimiter {
	return &fairLimiter{
		bucket:   rate.NewLimiter(rate.Limit(perSecond), 1),
		interval: time.Duration(float64(time.Second) / perSecond),
		waiting:  map[string]map[string]waiter{},
		served:   map[string]int{},
		now:      time.Now,
	}
}

// Take reports whether key, in namespace ns, may send one command now;
// otherwise it returns how long to wait before asking again.
func (f *fairLimiter) Take(ns, key string) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	f.expire(now)
	f.join(ns)
	if f.served[ns] <= f.minServed() {
		r := f.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			return false, f.wait(ns, key, now, d)
		}
		f.served[ns]++
		delete(f.waiting[ns], key)
		return true, 0
	}
	return false, f.wait(ns, key, now, f.turnIn(ns, key, now))
}

// join lets a namespace that was not waiting start level with the others,
// so it neither jumps ahead by its earlier history nor waits for it.
func (f *fairLimiter) join(ns string) {
	if len(f.waiting) == 0 {
		clear(f.served)
	}
	if _, ok := f.waiting[ns]; ok {
		return
	}
	f.waiting[ns] = map[string]waiter{}
	if len(f.waiting) > 1 {
		f.served[ns] = max(f.served[ns], f.minServedExcept(ns))
	}
}

func (f *fairLimiter) minServed() int { return f.minServedExcept("") }

func (f *fairLimiter) minServedExcept(skip string) int {
	first, low := true, 0
	for ns := range f.waiting {
		if ns == skip {
			continue
		}
		if first || f.served[ns] < low {
			first, low = false, f.served[ns]
		}
	}
	return low
}

// turnIn estimates when key's turn comes: its place in its namespace's line
// times the namespaces sharing the budget.
func (f *fairLimiter) turnIn(ns, key string, now time.Time) time.Duration {
	w, ok := f.waiting[ns][key]
	if !ok {
		w.since = now
	}
	ahead := 0
	for k, o := range f.waiting[ns] {
		if k != key && o.since.Before(w.since) {
			ahead++
		}
	}
	return time.Duration(ahead*len(f.waiting)+1) * f.interval
}

// wait records key as waiting d and returns d.
func (f *fairLimiter) wait(ns, key string, now time.Time, d time.Duration) time.Duration {
	w, ok := f.waiting[ns][key]
	if !ok {
		w.since = now
	}
	w.expires = now.Add(d + lineGrace)
	f.waiting[ns][key] = w
	return d
}

// expire drops keys that did not come back, and namespaces left empty.
func (f *fairLimiter) expire(now time.Time) {
	for ns, keys := range f.waiting {
		for k, w := range keys {
			if now.After(w.expires) {
				delete(keys, k)
			}
		}
		if len(keys) == 0 {
			delete(f.waiting, ns)
		}
	}
}

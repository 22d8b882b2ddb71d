package hue

import (
	"fmt"
	"testing"
	"time"
)

// TestFairLimiterAlternatesNamespaces: two rooms asking at once share the
// budget in turn, however many lights each has.
func TestFairLimiterAlternatesNamespaces(t *testing.T) {
	f := newFairLimiter(10)
	clock := time.Unix(0, 0)
	f.now = func() time.Time { return clock }

	var order []string
	pending := map[string][]string{"a": keys("a", 6), "b": keys("b", 2)}
	for step := 0; step < 200 && len(order) < 8; step++ {
		for _, ns := range []string{"a", "b"} {
			for i := 0; i < len(pending[ns]); i++ {
				if ok, _ := f.Take(ns, pending[ns][i]); ok {
					order = append(order, ns)
					pending[ns] = append(pending[ns][:i], pending[ns][i+1:]...)
					i--
				}
			}
		}
		clock = clock.Add(100 * time.Millisecond)
	}
	// a asked first and may go first; from then on b gets every other
	// command until it is done, instead of waiting for all of a.
	bSeen := 0
	for _, ns := range order[:5] {
		if ns == "b" {
			bSeen++
		}
	}
	if bSeen != 2 {
		t.Fatalf("order %v: namespace b should be served within the first 5 commands", order)
	}
	if len(order) != 8 {
		t.Fatalf("only %d of 8 commands served", len(order))
	}
}

func TestFairLimiterRate(t *testing.T) {
	f := newFairLimiter(10)
	clock := time.Unix(0, 0)
	f.now = func() time.Time { return clock }
	served := 0
	for range 20 { // 2 s of asking every 100 ms by 5 keys
		for _, k := range keys("a", 5) {
			if ok, wait := f.Take("a", k); ok {
				served++
			} else if wait <= 0 {
				t.Fatal("refused without a wait")
			}
		}
		clock = clock.Add(100 * time.Millisecond)
	}
	if served > 21 || served < 18 {
		t.Fatalf("served %d commands in 2 s at 10/s", served)
	}
}

func keys(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

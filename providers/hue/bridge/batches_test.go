package bridge

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TestGatheringHoldsWhileExpectedHueLightsArrive: the line is held while
// expected HueLights keep arriving, lingers after the last of a burst
// (briefly, or lingerPerGap times the widest gap between its HueLights
// being seen, up to gatherLingerMax), holds no change alone but counts
// one that joins after it, and is let go after gatherIdle without progress, at the end, or
// when temporary scenes may not be used.
func TestGatheringHoldsWhileExpectedHueLightsArrive(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	farEnd := t0.Add(time.Hour)
	gap := 150 * time.Millisecond // wider than gatherLinger/lingerPerGap
	const bulbs = 50              // more than any case counts
	cases := []struct {
		name   string
		events func(g *gathering)
		now    time.Time
		end    time.Time
		usable bool
		bulbs  int
		want   bool
	}{
		{"nothing expected", func(*gathering) {}, t0, farEnd, true, bulbs, false},
		{"expected, within gatherIdle", func(g *gathering) { g.expect(a, 1, t0) }, t0.Add(gatherIdle / 2), farEnd, true, bulbs, true},
		{"expected, silent for gatherIdle", func(g *gathering) { g.expect(a, 1, t0) }, t0.Add(gatherIdle), farEnd, true, bulbs, false},
		{"expected, past the end", func(g *gathering) { g.expect(a, 1, t0) }, t0.Add(gatherIdle / 2), t0, true, bulbs, false},
		{"expected, scenes not usable", func(g *gathering) { g.expect(a, 1, t0) }, t0.Add(gatherIdle / 2), farEnd, false, bulbs, false},
		{"a burst arrived: lingers", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(gatherLinger / 2), farEnd, true, bulbs, true},
		{"a burst arrived: lingered enough", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(gatherLinger), farEnd, true, bulbs, false},
		{"a burst seen in chunks: lingers lingerPerGap times its widest gap", func(g *gathering) {
			g.expect(a, 1, t0)
			g.arrived(a, 1, t0)
			g.expect(b, 1, t0.Add(gap))
			g.arrived(b, 1, t0.Add(gap))
		}, t0.Add(gap + lingerPerGap*gap - time.Millisecond), farEnd, true, bulbs, true},
		{"a burst seen in chunks: lingered enough", func(g *gathering) {
			g.expect(a, 1, t0)
			g.arrived(a, 1, t0)
			g.expect(b, 1, t0.Add(gap))
			g.arrived(b, 1, t0.Add(gap))
		}, t0.Add(gap + lingerPerGap*gap), farEnd, true, bulbs, false},
		{"a burst seen in chunks: lingers gatherLingerMax at most", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0.Add(900*time.Millisecond))
			g.arrived(a, 1, t0.Add(900*time.Millisecond))
			g.arrived(b, 1, t0.Add(900*time.Millisecond))
		}, t0.Add(900*time.Millisecond + gatherLingerMax), farEnd, true, bulbs, false},
		{"a change alone, then one that joins: a burst", func(g *gathering) {
			g.expect(a, 1, t0)
			g.arrived(a, 1, t0)
			g.joined(b, t0.Add(10*time.Millisecond))
		}, t0.Add(10*time.Millisecond + gatherLinger - time.Millisecond), farEnd, true, bulbs, true},
		{"a change that joins alone: not held", func(g *gathering) {
			g.joined(a, t0)
		}, t0.Add(time.Millisecond), farEnd, true, bulbs, false},
		{"a change alone, then another after the linger: not held", func(g *gathering) {
			g.joined(a, t0)
			g.holds(t0.Add(gatherLinger), farEnd, true, bulbs)
			g.joined(b, t0.Add(gatherLinger))
		}, t0.Add(gatherLinger + time.Millisecond), farEnd, true, bulbs, false},
		{"a new burst forgets the last one's gaps", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0.Add(400*time.Millisecond))
			g.arrived(a, 1, t0.Add(400*time.Millisecond))
			g.arrived(b, 1, t0.Add(400*time.Millisecond))
			g.holds(t0.Add(2*time.Second), farEnd, true, bulbs)
			g.expect(a, 2, t0.Add(2*time.Second))
			g.expect(b, 2, t0.Add(2*time.Second))
			g.arrived(a, 2, t0.Add(2*time.Second))
			g.arrived(b, 2, t0.Add(2*time.Second))
		}, t0.Add(2*time.Second + gatherLinger), farEnd, true, bulbs, false},
		{"a burst of as many HueLights as bulbs: no linger", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(time.Millisecond), farEnd, true, 2, false},
		{"a burst of as many HueLights as bulbs still waits for the expected", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0)
			g.arrived(a, 1, t0)
		}, t0.Add(time.Millisecond), farEnd, true, 2, true},
		{"no bulbs read yet: a burst lingers", func(g *gathering) {
			g.expect(a, 1, t0)
			g.expect(b, 1, t0)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(time.Millisecond), farEnd, true, 0, true},
		{"one alone arrived: no linger", func(g *gathering) {
			g.expect(a, 1, t0)
			g.arrived(a, 1, t0)
		}, t0.Add(gatherLinger / 2), farEnd, true, bulbs, false},
		{"an older generation is no arrival", func(g *gathering) {
			g.expect(a, 2, t0)
			g.arrived(a, 1, t0)
		}, t0.Add(gatherIdle / 2), farEnd, true, bulbs, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var g gathering
			tc.events(&g)
			if got := g.holds(tc.now, tc.end, tc.usable, tc.bulbs); got != tc.want {
				t.Fatalf("holds = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGatheringEndsAtTheOldestOrder: a gathering ends gatherMax after it
// began, or sooner, gatherMax after the oldest order in line joined.
func TestGatheringEndsAtTheOldestOrder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	g := gathering{since: t0}
	if got := g.end(time.Time{}, false); !got.Equal(t0.Add(gatherMax)) {
		t.Errorf("empty line: ends %s, want %s", got, t0.Add(gatherMax))
	}
	if got := g.end(t0.Add(-time.Second), true); !got.Equal(t0.Add(gatherMax - time.Second)) {
		t.Errorf("an older order: ends %s, want %s", got, t0.Add(gatherMax-time.Second))
	}
	if got := g.end(t0.Add(time.Second), true); !got.Equal(t0.Add(gatherMax)) {
		t.Errorf("a younger order: ends %s, want %s", got, t0.Add(gatherMax))
	}
}

// TestGatheringHoldsOnlyNamespacesWithABurst: a gathering holds the
// orders of a namespace two or more of whose HueLights it counted, not
// those of a namespace with one change in it, nor of one with none; a new
// gathering starts the count again.
func TestGatheringHoldsOnlyNamespacesWithABurst(t *testing.T) {
	t0 := time.Unix(1000, 0)
	key := func(ns, name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	var g gathering
	g.expect(key("a", "1"), 1, t0)
	g.expect(key("a", "2"), 1, t0)
	g.joined(key("b", "1"), t0)
	g.expect(key("a", "1"), 2, t0) // counted once however often it is seen
	for ns, want := range map[string]bool{"a": true, "b": false, "c": false} {
		if got := g.holdsNamespace(ns); got != want {
			t.Errorf("holdsNamespace(%q) = %v, want %v", ns, got, want)
		}
	}
	if !g.holds(t0, t0.Add(time.Hour), true, 50) {
		t.Fatal("the gathering should hold while expected HueLights arrive")
	}
	g.holds(t0.Add(gatherIdle), t0.Add(time.Hour), true, 50) // over: forgotten
	g.joined(key("b", "1"), t0.Add(gatherIdle))
	g.joined(key("b", "2"), t0.Add(gatherIdle))
	if g.holdsNamespace("a") || !g.holdsNamespace("b") {
		t.Errorf("a new gathering counts afresh: a %v (want false), b %v (want true)", g.holdsNamespace("a"), g.holdsNamespace("b"))
	}
}

package bridge

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TestGatheringHoldsWhileExpectedHueLightsArrive: the line is held while
// expected HueLights keep arriving, lingers briefly after the last of a
// burst, and is let go after gatherIdle without progress, at the end, or
// when temporary scenes may not be used.
func TestGatheringHoldsWhileExpectedHueLightsArrive(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	farEnd := t0.Add(time.Hour)
	cases := []struct {
		name   string
		events func(g *gathering)
		now    time.Time
		end    time.Time
		usable bool
		want   bool
	}{
		{"nothing expected", func(*gathering) {}, t0, farEnd, true, false},
		{"expected, within gatherIdle", func(g *gathering) { g.expect(a, 1, t0, false) }, t0.Add(gatherIdle / 2), farEnd, true, true},
		{"expected, silent for gatherIdle", func(g *gathering) { g.expect(a, 1, t0, false) }, t0.Add(gatherIdle), farEnd, true, false},
		{"expected, past the end", func(g *gathering) { g.expect(a, 1, t0, false) }, t0.Add(gatherIdle / 2), t0, true, false},
		{"expected, scenes not usable", func(g *gathering) { g.expect(a, 1, t0, false) }, t0.Add(gatherIdle / 2), farEnd, false, false},
		{"a burst arrived: lingers", func(g *gathering) {
			g.expect(a, 1, t0, false)
			g.expect(b, 1, t0, true)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(gatherLinger / 2), farEnd, true, true},
		{"a burst arrived: lingered enough", func(g *gathering) {
			g.expect(a, 1, t0, false)
			g.expect(b, 1, t0, true)
			g.arrived(a, 1, t0)
			g.arrived(b, 1, t0)
		}, t0.Add(gatherLinger), farEnd, true, false},
		{"one alone arrived: no linger", func(g *gathering) {
			g.expect(a, 1, t0, false)
			g.arrived(a, 1, t0)
		}, t0.Add(gatherLinger / 2), farEnd, true, false},
		{"an older generation is no arrival", func(g *gathering) {
			g.expect(a, 2, t0, false)
			g.arrived(a, 1, t0)
		}, t0.Add(gatherIdle / 2), farEnd, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var g gathering
			tc.events(&g)
			if got := g.holds(tc.now, tc.end, tc.usable); got != tc.want {
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

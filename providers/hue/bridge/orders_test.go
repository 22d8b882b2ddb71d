package bridge

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func queued(ns, name, lightID string) *order {
	return &order{key: types.NamespacedName{Namespace: ns, Name: name}, lightID: lightID}
}

func names(orders []*order) []string {
	var out []string
	for _, o := range orders {
		out = append(out, o.key.Name)
	}
	return out
}

// TestLineServesNamespacesInTurn: the line takes one order of each
// namespace in turn, a namespace new to it joins at the end of the turn,
// and an order given back goes to the head of its namespace's queue.
func TestLineServesNamespacesInTurn(t *testing.T) {
	cases := []struct {
		name string
		push func(l *line)
		want []string
	}{
		{"one namespace, oldest first", func(l *line) {
			l.push(queued("a", "a1", "1"), false)
			l.push(queued("a", "a2", "2"), false)
		}, []string{"a1", "a2"}},
		{"two namespaces take turns", func(l *line) {
			for _, o := range []*order{queued("a", "a1", "1"), queued("a", "a2", "2"), queued("a", "a3", "3"), queued("b", "b1", "4")} {
				l.push(o, false)
			}
		}, []string{"a1", "b1", "a2", "a3"}},
		{"given back goes first in its namespace", func(l *line) {
			l.push(queued("a", "a1", "1"), false)
			l.push(queued("a", "back", "2"), true)
		}, []string{"back", "a1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLine()
			tc.push(&l)
			var got []string
			for o := l.next(nil); o != nil; o = l.next(nil) {
				got = append(got, o.key.Name)
			}
			if !slices.Equal(got, tc.want) || l.len() != 0 {
				t.Fatalf("served %v (%d left), want %v", got, l.len(), tc.want)
			}
		})
	}
}

// TestLinePassesOverHeldNamespaces: while namespace a is held (a
// gathering waits for its burst), the others are served in turn and a's
// orders stay in line, in their order.
func TestLinePassesOverHeldNamespaces(t *testing.T) {
	l := newLine()
	for _, o := range []*order{queued("a", "a1", "1"), queued("b", "b1", "2"), queued("a", "a2", "3"), queued("c", "c1", "4"), queued("b", "b2", "5")} {
		l.push(o, false)
	}
	heldA := func(ns string) bool { return ns == "a" }
	var got []string
	for o := l.next(heldA); o != nil; o = l.next(heldA) {
		got = append(got, o.key.Name)
	}
	if want := []string{"b1", "c1", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("served %v while a was held, want %v", got, want)
	}
	if l.anyFree(heldA) || !l.anyFree(func(string) bool { return false }) {
		t.Fatal("only a's orders are left, and they are free once a is not held")
	}
	got = nil
	for o := l.next(nil); o != nil; o = l.next(nil) {
		got = append(got, o.key.Name)
	}
	if want := []string{"a1", "a2"}; !slices.Equal(got, want) {
		t.Fatalf("served %v once a was let go, want %v", got, want)
	}
}

// TestLineWaitCountsTheTurn: an order's wait is its place in its
// namespace's queue times the namespaces taking turns, in slots.
func TestLineWaitCountsTheTurn(t *testing.T) {
	l := newLine()
	a1, a2, b1 := queued("a", "a1", "1"), queued("a", "a2", "2"), queued("b", "b1", "3")
	for _, o := range []*order{a1, a2, b1} {
		l.push(o, false)
	}
	for _, tc := range []struct {
		o    *order
		want time.Duration
	}{{a1, 100 * time.Millisecond}, {a2, 300 * time.Millisecond}, {b1, 100 * time.Millisecond}} {
		if got := l.wait(tc.o, 100*time.Millisecond); got != tc.want {
			t.Errorf("%s waits %s, want %s", tc.o.key.Name, got, tc.want)
		}
	}
	l.remove(a1)
	if got := l.wait(a2, 100*time.Millisecond); got != 100*time.Millisecond {
		t.Errorf("after a1 left, a2 waits %s, want one slot", got)
	}
}

// TestLineTakesFairlyOneOrderPerLight: a batch takes namespaces in turn
// and never two orders for one light; the orders stay in line.
func TestLineTakesFairlyOneOrderPerLight(t *testing.T) {
	l := newLine()
	for _, o := range []*order{queued("a", "a1", "1"), queued("a", "a2", "2"), queued("a", "again", "1"), queued("b", "b1", "3")} {
		l.push(o, false)
	}
	if got := names(l.takeFair(10)); !slices.Equal(got, []string{"a1", "b1", "a2"}) {
		t.Fatalf("took %v, want a1, b1, a2", got)
	}
	if got := names(l.takeFair(2)); !slices.Equal(got, []string{"a1", "b1"}) {
		t.Fatalf("took %v, want a1, b1", got)
	}
	if l.len() != 4 {
		t.Fatalf("%d left in line, want 4", l.len())
	}
}

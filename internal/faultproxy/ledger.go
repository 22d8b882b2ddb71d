package faultproxy

import (
	"bytes"
	"slices"
	"sync"
	"time"
)

// writeOps are the control-plane calls that change a table: a second one
// with the same body after the first was accepted asks for what is done.
var writeOps = []string{"CreateTable", "UpdateTable", "DeleteTable", "UpdateTimeToLive", "UpdateContinuousBackups",
	"TagResource", "UntagResource", "UpdateContributorInsights", "PutResourcePolicy", "DeleteResourcePolicy"}

// Ledger keeps every call the target answered, by table, to tell what a
// client sent: how many of each call, and which writes it sent again after
// the target had accepted the very same one. Attach it with Proxy.Keep.
type Ledger struct {
	mu    sync.Mutex
	calls map[string][]Answered
}

// Keep has the proxy record every answered call in a new ledger (it
// replaces any OnAnswered function).
func (p *Proxy) Keep() *Ledger {
	l := &Ledger{calls: map[string][]Answered{}}
	p.OnAnswered(func(a Answered) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.calls[a.Table] = append(l.calls[a.Table], a)
	})
	return l
}

// Count is how many op calls about table the target answered.
func (l *Ledger) Count(table, op string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.calls[table] {
		if a.Operation == op {
			n++
		}
	}
	return n
}

// Total is how many calls about table the target answered.
func (l *Ledger) Total(table string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls[table])
}

// TotalAll is how many calls the target answered, about any table.
func (l *Ledger) TotalAll() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, calls := range l.calls {
		n += len(calls)
	}
	return n
}

// Resends are the writes about table sent again, whatever the answer,
// within window after the target accepted (HTTP 200) the very same call:
// each a call made for a change already made.
func (l *Ledger) Resends(table string, window time.Duration) []Answered {
	l.mu.Lock()
	defer l.mu.Unlock()
	var accepted, again []Answered
	for _, a := range l.calls[table] {
		if !slices.Contains(writeOps, a.Operation) {
			continue
		}
		if slices.ContainsFunc(accepted, func(b Answered) bool {
			return b.Operation == a.Operation && bytes.Equal(b.Body, a.Body) && a.At.Sub(b.At) < window
		}) {
			again = append(again, a)
		}
		if a.Status == 200 {
			accepted = append(accepted, a)
		}
	}
	return again
}

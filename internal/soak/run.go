package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/bench"
)

// Phases of a soak, as samples are labelled.
const (
	phaseWarmUp   = "warm-up"
	phaseMischief = "mischief"
	phaseSettle   = "settle"
)

// Sample is one reading of the manager.
type Sample struct {
	// At is the offset from the start of the mischief, in seconds.
	At         float64 `json:"at"`
	Phase      string  `json:"phase"`
	Goroutines float64 `json:"goroutines"`
	HeapBytes  float64 `json:"heapAllocBytes"`
	// HeapGoal is go_memstats_next_gc_bytes: the heap size at which the
	// next collection starts, set by the last one to the heap it found
	// live times (1+GOGC/100). Unlike HeapBytes it does not follow the
	// garbage piling up between two collections, so its growth is the
	// live heap's (GOGC stays fixed and no memory limit is set).
	HeapGoal float64 `json:"heapGoalBytes"`
	RSSBytes int64   `json:"rssBytes"`
	// Reconciles is the manager's reconcile count so far, all controllers.
	Reconciles float64 `json:"reconciles"`
	// Drift is tether_drift_corrections_total so far, by kind.
	Drift map[string]float64 `json:"driftCorrections"`
	// ErrorLines is the number of error-level log lines so far.
	ErrorLines int  `json:"errorLines"`
	Offline    bool `json:"bridgeOffline"`
	// Process is which manager process was read (1 for the first; the
	// soak restarts it), Since how long it had run, in seconds.
	Process int     `json:"process"`
	Since   float64 `json:"processSince"`
}

// sampler reads the manager every SampleEvery until stopped.
type sampler struct {
	mu      sync.Mutex
	samples []Sample
	// failures counts readings that did not answer (metrics or /proc).
	failures int
	lastErr  string
}

func (s *soak) sampleOnce(sm *sampler, start time.Time, phase string, m *mischief) {
	now := time.Now()
	proc, restarting := s.current()
	if restarting {
		return // a restart under way is no failure to answer
	}
	op := proc.op
	if err := s.log.read(now); err != nil {
		sm.fail(err)
	}
	g, err := op.Gauges("go_goroutines", "go_memstats_heap_alloc_bytes", "go_memstats_next_gc_bytes")
	if err != nil {
		sm.fail(err)
		return
	}
	u, err := op.Usage()
	if err != nil {
		sm.fail(err)
		return
	}
	rc, err := op.Reconciles()
	if err != nil {
		sm.fail(err)
		return
	}
	total := 0.0
	for _, v := range rc {
		total += v
	}
	drift, err := op.Counter("tether_drift_corrections_total", "kind")
	if err != nil {
		sm.fail(err)
		return
	}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.samples = append(sm.samples, Sample{
		At: now.Sub(start).Round(time.Second).Seconds(), Phase: phase,
		Goroutines: g["go_goroutines"], HeapBytes: g["go_memstats_heap_alloc_bytes"], HeapGoal: g["go_memstats_next_gc_bytes"], RSSBytes: u.RSS,
		Reconciles: total, Drift: drift, ErrorLines: s.log.count(), Offline: m.isOffline(),
		Process: proc.n, Since: now.Sub(proc.started).Round(time.Second).Seconds(),
	})
}

func (sm *sampler) fail(err error) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.failures++
	sm.lastErr = err.Error()
}

// run is the soak proper: mischief for Duration while sampling, then the
// settle and the verdicts.
func (s *soak) run(ctx context.Context) (*Report, error) {
	o := s.opts
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	m := &mischief{counts: map[string]int{}}
	sm := &sampler{}
	start := time.Now()
	phase := func() string {
		if time.Since(start) < o.WarmUp {
			return phaseWarmUp
		}
		return phaseMischief
	}
	// The log up to now (creation) is read, so that its errors count too.
	if err := s.log.read(start); err != nil {
		return nil, err
	}
	o.logf("mischief for %s: a change every ~%s, a spec edit every ~%s, a burst every ~%s, a group edit every ~%s, %s offline every %s, "+
		"a stream cut every %s, %s of throttling every %s, a restart every %s (sampling every %s)",
		o.Duration, o.ChangeEvery, o.SpecEditEvery, o.BurstEvery, o.GroupEditEvery, o.FlapFor, o.FlapEvery,
		o.StreamCutEvery, o.ThrottleFor, o.ThrottleEvery, o.RestartEvery, o.SampleEvery)
	mctx, stopMischief := context.WithTimeout(ctx, o.Duration)
	defer stopMischief()
	done := make(chan struct{})
	go func() { defer close(done); s.makeMischief(mctx, m, rng) }()
	s.sampleOnce(sm, start, phaseWarmUp, m)
	tick := time.NewTicker(o.SampleEvery)
	progress := time.NewTicker(max(o.Duration/10, time.Minute))
	defer tick.Stop()
	defer progress.Stop()
loop:
	for {
		select {
		case <-mctx.Done():
			break loop
		case n := <-s.crashed:
			stopMischief()
			<-done
			return nil, fmt.Errorf("the manager (process %d) exited on its own during the soak, or could not be restarted", n)
		case <-tick.C:
			s.sampleOnce(sm, start, phase(), m)
		case <-progress.C:
			s.progress(sm, m, start)
		}
	}
	<-done
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	mischiefEnd := time.Now()
	s.sampleOnce(sm, start, phaseMischief, m)
	o.logf("mischief over (%s), the bridges online and DynamoDB not throttling; settling (up to %s)", bench.FormatCounts(m.counts), o.SettleTimeout)

	// The settle: nothing more is changed; wait until everything is Ready
	// and matches, sampling on.
	var final check
	atEnd, err := s.check(ctx)
	if err != nil {
		return nil, err
	}
	o.logf("at the end of the mischief: %s", atEnd.summary())
	settled := false
	// settling is how many objects were not yet Ready or matching at each
	// check of the settle.
	var settling []string
	var settleTook time.Duration
	deadline := time.Now().Add(o.SettleTimeout)
	nextSample := time.Now().Add(o.SampleEvery)
	for {
		var err error
		final, err = s.check(ctx)
		if err != nil {
			return nil, err
		}
		settling = append(settling, fmt.Sprintf("%s: %d", time.Since(mischiefEnd).Round(time.Second), final.problems()))
		if final.ok() {
			settled, settleTook = true, time.Since(mischiefEnd)
			break
		}
		if time.Now().After(deadline) {
			settleTook = time.Since(mischiefEnd)
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case n := <-s.crashed:
			return nil, fmt.Errorf("the manager (process %d) exited on its own during the settle", n)
		case <-time.After(5 * time.Second):
		}
		if time.Now().After(nextSample) {
			s.sampleOnce(sm, start, phaseSettle, m)
			nextSample = time.Now().Add(o.SampleEvery)
		}
	}
	s.sampleOnce(sm, start, phaseSettle, m)
	end := time.Now()
	o.logf("settled: %t after %s; %s", settled, settleTook.Round(time.Second), final.summary())
	rep := s.report(m, sm, final, settled, settleTook, start, mischiefEnd, end)
	rep.AtMischiefEnd = atEnd.summary()
	rep.SettleProgress = settling
	for i := range rep.Verdicts[:3] {
		rep.Verdicts[i].Evidence += "; at the end of the mischief: " + atEnd.summary()
	}
	return rep, nil
}

func (s *soak) progress(sm *sampler, m *mischief, start time.Time) {
	sm.mu.Lock()
	last := Sample{}
	if len(sm.samples) > 0 {
		last = sm.samples[len(sm.samples)-1]
	}
	sm.mu.Unlock()
	m.mu.Lock()
	counts := bench.FormatCounts(m.counts)
	m.mu.Unlock()
	s.opts.logf("%s in: manager process %d, goroutines %.0f, heap %.1f MB, RSS %.1f MB, reconciles %.0f, error lines %d; injected: %s",
		time.Since(start).Round(time.Second), last.Process, last.Goroutines, last.HeapBytes/1e6, float64(last.RSSBytes)/1e6, last.Reconciles, last.ErrorLines, counts)
}

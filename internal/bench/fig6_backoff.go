package bench

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/faultproxy"
)

func init() {
	registerMain(6, "Backoff discipline", (*run).backoff)
}

// Figure 6: a bridge offline and DynamoDB throttling half the calls, at the
// same time (they share nothing but the operator process).
func (r *run) backoff(ctx context.Context) error {
	var (
		wg           sync.WaitGroup
		hueErr, dErr error
		hue, ddb     figureResult
	)
	wg.Add(2)
	go func() { defer wg.Done(); hueErr = r.hueOutage(ctx, &hue) }()
	go func() { defer wg.Done(); dErr = r.ddbThrottle(ctx, &ddb) }()
	wg.Wait()
	if hueErr != nil {
		return hueErr
	}
	if dErr != nil {
		return dErr
	}
	f := r.fig(6)
	for _, part := range []figureResult{hue, ddb} {
		f.Samples = append(f.Samples, part.Samples...)
		f.Notes = append(f.Notes, part.Notes...)
	}
	return nil
}

func (r *run) hueOutage(ctx context.Context, f *figureResult) error {
	p := r.outage
	objs := objects(r.outageLights)
	p.reset()
	p.setOffline(true)
	start := time.Now()
	if err := r.sleep(ctx, r.sc.Outage/2); err != nil {
		return err
	}
	// Half-way, every light is asked to change: work piles up that must
	// not turn into one retry loop per light.
	w, err := r.patchAll(ctx, objs, `{"spec":{"brightness":77}}`)
	if err != nil {
		return err
	}
	if err := r.sleep(ctx, r.sc.Outage-time.Since(start)); err != nil {
		return err
	}
	calls := p.reset()
	p.setOffline(false)
	back := time.Now()
	outage := back.Sub(start)
	total := 0
	for _, n := range calls {
		total += n
	}
	last, err := r.waitReady(ctx, false, w, 5*time.Minute, nil)
	if err != nil {
		return fmt.Errorf("recovery after the outage: %w", err)
	}
	polls := math.Ceil(outage.Seconds() / r.sc.HuePoll.Seconds())
	bound := polls + 5
	f.add("hue_calls", fmt.Sprintf("Hue: calls to the offline bridge in %s (%d HueLights)", r.sc.Outage, len(objs)), "calls", float64(total), &goal{Op: "<=", Limit: bound})
	f.why("calls by path: %s", FormatCounts(calls))
	f.add("hue_calls_per_light", "Hue: calls per HueLight during the outage", "calls", float64(total)/float64(len(objs)), nil)
	f.add("hue_recovery", "Hue: time from back online to all Ready with the change made during the outage", "s", secs(last.Sub(back)), nil)
	f.note("The outage bridge sits behind a counting proxy that, while offline, drops every connection unanswered (a fast failure, the harshest for backoff); calls by path: %s.", FormatCounts(calls))
	f.note("Goal bound: one poll per interval (%.0f; the HueBridge's health comes from the same poll) + 5 = %.0f calls, whatever the number of lights. Half-way through, all %d lights were changed.",
		polls, bound, len(objs))
	return nil
}

func (r *run) ddbThrottle(ctx context.Context, f *figureResult) error {
	n := min(r.sc.ThrottleTables, len(r.tables))
	objs := objects(r.tables[:n])
	faultsBefore := r.proxy.Faults()["DescribeTable"]
	r.proxy.SetRules(faultproxy.Rule{Share: 0.5, Fault: faultproxy.Throttling})
	start := time.Now()
	rates := sampleEverySecond(r.proxy.Total)
	w, err := r.patchAll(ctx, objs, `{"spec":{"provisionedThroughput":{"readCapacityUnits":6,"writeCapacityUnits":5}}}`)
	if err != nil {
		rates()
		r.proxy.SetRules()
		return err
	}
	if err := r.sleep(ctx, r.sc.Throttle-time.Since(start)); err != nil {
		rates()
		r.proxy.SetRules()
		return err
	}
	buckets := rates()
	r.proxy.SetRules()
	end := time.Now()
	total := sumOf(buckets)
	window := float64(max(len(buckets), 1)) // whole seconds sampled
	readyDuring := 0
	if ready, err := r.readyNow(ctx, true, w); err == nil {
		readyDuring = len(ready)
	}
	last, err := r.waitReady(ctx, true, w, 5*time.Minute, nil)
	if err != nil {
		return fmt.Errorf("recovery after throttling: %w", err)
	}
	f.add("ddb_rate", fmt.Sprintf("DynamoDB: calls per second while 50%% throttled (%s)", r.sc.Throttle), "calls/s", total/window,
		&goal{Op: "<=", Limit: limiterRate + limiterBurst/window, Text: fmt.Sprintf("<= %d/s (+ the burst of %d once: %.1f/s over %.0f s)", limiterRate, limiterBurst, limiterRate+limiterBurst/window, window)})
	f.why("calls are not all paced by one limiter: %.0f calls in %.0f s, up to %.0f in one second", total, window, maxOf(buckets))
	f.add("ddb_max_1s", "DynamoDB: most calls in any one second", "calls", maxOf(buckets), nil)
	f.add("ddb_max_10s", "DynamoDB: highest 10-second average", "calls/s", maxWindowMean(buckets, 10), nil)
	f.add("ddb_changed_ready", fmt.Sprintf("DynamoDB: changed tables Ready by the end of the throttling (of %d)", n), "tables", float64(readyDuring), nil)
	f.add("ddb_recovery", "DynamoDB: time from the end of throttling to all changed tables Ready", "s", secs(max(0, last.Sub(end))), nil)
	f.note("%d tables' capacity changed at the start while the proxy answered 50%% of all calls with ThrottlingException; the other %d tables kept polling. %d DescribeTable calls were throttled.",
		n, len(r.tables)-n, r.proxy.Faults()["DescribeTable"]-faultsBefore)
	return nil
}

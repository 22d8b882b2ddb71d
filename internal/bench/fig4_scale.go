package bench

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

func init() {
	registerMain(4, "Scale", (*run).scale)
}

// Figure 4: the tables created at once (and, meanwhile, the second and the
// outage bridges' HueLights, which later figures need).
func (r *run) scale(ctx context.Context) error {
	for i := range r.sc.Tables {
		r.tables = append(r.tables, newTable(fmt.Sprintf("t-%04d", i+1), i < r.sc.ThrottleTables))
	}
	r.betaLights = lightsOn(bridgeBeta, "", r.sc.WatchLights-r.sc.ConvergeLights, 120)
	r.outageLights = lightsOn(bridgeOutage, outageNS, r.sc.OutageLights, 120)
	background := append(objects(r.betaLights), objects(r.outageLights)...)

	r.proxy.ResetCounts()
	u0, err := r.op.Usage()
	if err != nil {
		return err
	}
	c0, err := r.op.counters()
	if err != nil {
		return err
	}
	rc0, api0 := c0.reconciles, c0.apiRequests
	start := time.Now()
	rates := sampleEverySecond(r.proxy.Total)
	bgErr := make(chan error, 1)
	go func() { bgErr <- r.createAll(ctx, background) }()
	tables := objects(r.tables)
	if err := r.createAll(ctx, tables); err != nil {
		rates()
		return err
	}
	// Calls per table until it was first seen Ready; later polls of an
	// early table are not creation cost.
	var perTable []float64
	byOp := map[string]int{}
	timeout := time.Duration(3*r.sc.Tables/limiterRate)*time.Second*3 + 2*time.Minute
	last, err := r.waitReady(ctx, true, wantAll(tables), timeout, func(key string) {
		n := 0
		for op, c := range r.proxy.CallsFor(strings.TrimPrefix(key, tablesNS+"/")) {
			n += c
			byOp[op] += c
		}
		perTable = append(perTable, float64(n))
	})
	buckets := rates()
	if err != nil {
		return err
	}
	u1, err := r.op.Usage()
	if err != nil {
		return err
	}
	c1, err := r.op.counters()
	if err != nil {
		return err
	}
	rc1, api1 := c1.reconciles, c1.apiRequests
	if err := <-bgErr; err != nil {
		return err
	}
	if _, err := r.waitReady(ctx, false, wantAll(background), 5*time.Minute, nil); err != nil {
		return fmt.Errorf("the second bridge's and the outage bridge's lights: %w", err)
	}

	f := r.fig(4)
	limiterFloor := math.Max(0, float64(3*r.sc.Tables-limiterBurst)) / limiterRate
	f.add("ready", fmt.Sprintf("%d tables: time to all Ready", r.sc.Tables), "s", secs(last.Sub(start)), nil)
	f.add("ready_floor", fmt.Sprintf("its floor: the shared limiter, %d calls at %d/s after a burst of %d (computed)", 3*r.sc.Tables, limiterRate, limiterBurst), "s", limiterFloor, nil)
	f.add("ready_ratio", "its ratio to the floor", "x", ratioOf(secs(last.Sub(start)), limiterFloor), nil)
	f.add("calls_mean", "calls per table during creation (mean)", "calls", mean(perTable), &goal{Op: "<=", Limit: 3})
	f.why("calls by operation until Ready: %s", FormatCounts(byOp))
	f.add("calls_max", "calls per table during creation (max)", "calls", maxOf(perTable), nil)
	f.add("rate_10s", "DynamoDB calls per second during creation (highest 10-second average)", "calls/s", maxWindowMean(buckets, 10),
		&goal{Op: "<=", Limit: limiterRate + limiterBurst/10.0, Text: fmt.Sprintf("<= %d/s + burst %d/10 s (the shared limiter)", limiterRate, limiterBurst)})
	f.why("%.0f calls reached DynamoDB in %d s of creation, up to %.0f in one second: the per-region limiter (%d/s, burst %d) did not pace them all",
		sumOf(buckets), len(buckets), maxOf(buckets), limiterRate, limiterBurst)
	reconciles := sum(rc1) - sum(rc0)
	cpu := u1.CPUTotal - u0.CPUTotal
	if reconciles > 0 {
		f.add("cpu_per_reconcile", "operator CPU per reconcile", "ms", ms(cpu)/reconciles, nil)
	}
	f.note("Creation phase: %.0f reconciles (%s), %.1f CPU s; %d HueLights on two other bridges were created at the same time.",
		reconciles, formatFloatCounts(diff(rc1, rc0)), cpu.Seconds(), len(background))
	more := 0
	for _, n := range perTable {
		if n > 3 {
			more++
		}
	}
	f.note("Calls until each table was first seen Ready, by operation: %s; %d of %d tables took more than 3.", FormatCounts(byOp), more, len(perTable))
	f.note("Kubernetes API requests by the operator during creation: %s (%.0f/s).", formatFloatCounts(diff(api1, api0)), (sum(api1)-sum(api0))/last.Sub(start).Seconds())
	f.note("The floor set by the operator's own per-region limiter (%d calls/s, burst %d) is about %.0f s for %d tables at 3 calls each.",
		limiterRate, limiterBurst, limiterFloor, r.sc.Tables)
	return nil
}

package bench

import (
	"context"
	"fmt"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// Figure 3: the steady state over several poll intervals with every object
// created so far.
func (r *run) watchCost(ctx context.Context) error {
	alpha, beta := r.bridge[bridgeAlpha], r.bridge[bridgeBeta]
	// Let the last convergence's status writes and resyncs settle.
	if err := r.sleep(ctx, r.sc.HuePoll); err != nil {
		return err
	}
	versions0, err := r.resourceVersions(ctx)
	if err != nil {
		return err
	}
	c0, err := r.op.counters()
	if err != nil {
		return err
	}
	rc0, api0 := c0.reconciles, c0.apiRequests
	alpha.ResetGetCounts()
	beta.ResetGetCounts()
	r.proxy.ResetCounts()
	window := time.Duration(r.sc.WatchIntervals) * max(r.sc.HuePoll, r.sc.DDBPoll)
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	gets := []map[string]int{alpha.GetCounts(), beta.GetCounts()}
	calls := r.proxy.Calls()
	c1, err := r.op.counters()
	if err != nil {
		return err
	}
	rc1, api1 := c1.reconciles, c1.apiRequests
	versions1, err := r.resourceVersions(ctx)
	if err != nil {
		return err
	}
	hueIntervals := window.Seconds() / r.sc.HuePoll.Seconds()
	ddbIntervals := window.Seconds() / r.sc.DDBPoll.Seconds()
	worst, worstLights := 0, 0
	for _, g := range gets {
		total := 0
		for _, n := range g {
			total += n
		}
		worst = max(worst, total)
		worstLights = max(worstLights, g["/lights"])
	}
	totalCalls := 0
	for _, n := range calls {
		totalCalls += n
	}
	f := r.fig(3)
	f.add("hue_gets", "Hue: GETs per bridge per poll interval (all paths, worst bridge)", "GETs", float64(worst)/hueIntervals, &goal{Op: "<=", Limit: 1})
	f.why("GET /lights alone is %.2f per interval (the shared poller, which the HueBridge's health is also taken from); GETs by path: %s",
		float64(worstLights)/hueIntervals, formatCounts(gets[0]))
	f.add("hue_lights_gets", "Hue: GET /lights per bridge per poll interval", "GETs", float64(worstLights)/hueIntervals, nil)
	f.add("ddb_calls", "DynamoDB: calls per table per poll interval", "calls", float64(totalCalls)/float64(r.sc.Tables)/ddbIntervals, &goal{Op: "<=", Limit: 1.1})
	f.why("calls by operation: %s", formatCounts(calls))
	f.add("ddb_describes", "DynamoDB: DescribeTable per table per poll interval", "calls", float64(calls["DescribeTable"])/float64(r.sc.Tables)/ddbIntervals, nil)
	lightRec := rc1["huelight"] - rc0["huelight"]
	tableRec := rc1["dynamodbtable"] - rc0["dynamodbtable"]
	f.add("light_reconciles", "HueLight reconciles per light per Hue poll interval", "reconciles", lightRec/float64(r.sc.WatchLights+r.sc.OutageLights+latencyLights(r.sc))/hueIntervals, nil)
	f.add("table_reconciles", "DynamoDBTable reconciles per table per DynamoDB poll interval", "reconciles", tableRec/float64(r.sc.Tables)/ddbIntervals, nil)
	rewritten := 0
	for k, v := range versions1 {
		if versions0[k] != v {
			rewritten++
		}
	}
	f.add("rewritten", "objects rewritten during the window", "objects", float64(rewritten), nil)
	f.note("Window: %s = %d x the longer poll interval, with %d HueLights on two bridges (%d more on two others) and %d DynamoDBTables. "+
		"Poll intervals shortened with the manager's flags to keep the run short: --hue-poll-interval=%s (the default), --dynamodbtable-poll-interval=%s (default 2m).",
		window, r.sc.WatchIntervals, r.sc.WatchLights, r.sc.OutageLights+latencyLights(r.sc), r.sc.Tables, r.sc.HuePoll, r.sc.DDBPoll)
	f.note("GETs by path, per bridge: %s; DynamoDB calls by operation: %s; Kubernetes API requests by the operator: %s.",
		formatCounts(gets[0])+" | "+formatCounts(gets[1]), formatCounts(calls), formatFloatCounts(diff(api1, api0)))

	// Figure 4's memory figure: the operator now holds every object.
	u, err := r.op.Usage()
	if err != nil {
		return err
	}
	objs := r.sc.WatchLights + r.sc.OutageLights + latencyLights(r.sc) + r.sc.Tables
	f4 := r.fig(4)
	f4.add("peak_rss", fmt.Sprintf("operator peak RSS (%d objects)", objs), "MB", float64(u.PeakRSS)/1e6, &goal{Op: "<=", Limit: 150})
	f4.note("RSS read from /proc/<pid>/status (VmHWM, peak since start; VmRSS now %.0f MB) of the manager binary running as its own process; total CPU so far %.1f s.",
		float64(u.RSS)/1e6, u.CPUTotal.Seconds())
	return nil
}

func (r *run) resourceVersions(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	var lights huev1alpha1.HueLightList
	if err := r.cache.List(ctx, &lights); err != nil {
		return nil, err
	}
	for _, l := range lights.Items {
		out["hl/"+keyOf(&l)] = l.ResourceVersion
	}
	var tables awsv1alpha1.DynamoDBTableList
	if err := r.cache.List(ctx, &tables); err != nil {
		return nil, err
	}
	for _, t := range tables.Items {
		out["ddbt/"+keyOf(&t)] = t.ResourceVersion
	}
	return out, nil
}

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/huesim"
)

// The operator's defaults the goals are stated against.
const (
	// bridgeCommandsPerSecond is the per-bridge light-command budget (the
	// manager's --hue-commands-per-second default and the simulator's).
	bridgeCommandsPerSecond = 10
	// limiterRate and limiterBurst are the DynamoDB adapter's per-region
	// limiter (providers/dynamodb ClientOptions defaults).
	limiterRate  = 25
	limiterBurst = 100
	// hueBridgeResync is how often a HueBridge reads /config for its health
	// (controllers.hueBridgeResync).
	hueBridgeResync = 30 * time.Second
)

// run is one run's state: the world, what the figures created, and results.
type run struct {
	*env
	sc   Scale
	logf func(string, ...any)

	latencyLights []*huev1alpha1.HueLight
	alphaLights   []*huev1alpha1.HueLight
	betaLights    []*huev1alpha1.HueLight
	outageLights  []*huev1alpha1.HueLight
	tables        []*awsv1alpha1.DynamoDBTable

	results map[int]*figureResult
}

func (r *run) fig(id int) *figureResult {
	if r.results == nil {
		r.results = map[int]*figureResult{}
	}
	f, ok := r.results[id]
	if !ok {
		f = &figureResult{ID: id, Title: figureTitles[id]}
		r.results[id] = f
	}
	return f
}

func (r *run) figures() []figureResult {
	var out []figureResult
	for id := 1; id <= 6; id++ {
		out = append(out, *r.fig(id))
	}
	return out
}

func (r *run) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func ms(d time.Duration) float64   { return float64(d) / float64(time.Millisecond) }
func secs(d time.Duration) float64 { return d.Seconds() }

// Figure 1: from a HueLight update being accepted by the API server (the
// client's Patch returned) to the PUT arriving at the bridge (the
// simulator's command log), one change at a time.
func (r *run) latency(ctx context.Context) error {
	sim := r.bridge[bridgeLatency]
	r.latencyLights = lightsOn(bridgeLatency, latencyNS, latencyLights(r.sc), 100)
	objs := objects(r.latencyLights)
	// Creates first, one at a time: a create also adds the finalizer
	// before anything is sent, so it is reported apart from updates.
	var creates []time.Duration
	for i, o := range objs {
		from := len(sim.Commands())
		if err := r.c.Create(ctx, o); err != nil {
			return err
		}
		accepted := time.Now()
		at, err := waitForPut(ctx, sim, from, fmt.Sprintf("/lights/%d/state", i+1), 100)
		if err != nil {
			return fmt.Errorf("create %d: %w", i, err)
		}
		creates = append(creates, at.Sub(accepted))
		if err := r.sleep(ctx, 150*time.Millisecond); err != nil {
			return err
		}
	}
	if _, err := r.waitReady(ctx, false, wantAll(objs), time.Minute, nil); err != nil {
		return err
	}
	current := map[int]int{}
	var samples, fromSent []time.Duration
	for k := range r.sc.LatencyChanges {
		i := k % len(objs)
		bri := 2 + (k*37)%250
		if bri == current[i] {
			bri++
		}
		current[i] = bri
		from := len(sim.Commands())
		sent := time.Now()
		if err := r.c.Patch(ctx, objs[i], client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"brightness":%d}}`, bri))); err != nil {
			return err
		}
		accepted := time.Now()
		at, err := waitForPut(ctx, sim, from, fmt.Sprintf("/lights/%d/state", i+1), bri)
		if err != nil {
			return fmt.Errorf("change %d (bri %d on light %d): %w", k, bri, i+1, err)
		}
		samples = append(samples, at.Sub(accepted))
		fromSent = append(fromSent, at.Sub(sent))
		// Single changes: let the bridge's budget (10/s) refill, so the
		// figure is the operator's reaction, not the limiter's pacing.
		if err := r.sleep(ctx, 150*time.Millisecond); err != nil {
			return err
		}
	}
	f := r.fig(1)
	f.add("p50", "p50 latency", "ms", ms(percentile(samples, 50)), &goal{Op: "<=", Limit: 30})
	f.why("the reaction to a single change (watch event, reconcile, PUT) is slow; see the operator's reconcile latency")
	f.add("p99", "p99 latency", "ms", ms(percentile(samples, 99)), &goal{Op: "<=", Limit: 150})
	f.why("a few changes waited; the max is %.0f ms", ms(percentile(samples, 100)))
	f.add("max", "max latency", "ms", ms(percentile(samples, 100)), nil)
	f.add("min", "min latency (negative: the PUT came before the client had the API server's answer)", "ms", ms(percentile(samples, 0)), nil)
	f.add("create_p50", fmt.Sprintf("p50 from a create (%d creates, apart from the updates above)", len(creates)), "ms", ms(percentile(creates, 50)), nil)
	f.add("create_max", "max from a create", "ms", ms(percentile(creates, 100)), nil)
	f.add("p50_sent", "p50 from the client sending the change (an upper bound)", "ms", ms(percentile(fromSent, 50)), nil)
	f.add("p99_sent", "p99 from the client sending the change", "ms", ms(percentile(fromSent, 99)), nil)
	f.note("%d single brightness changes on %d HueLights of one bridge, one at a time, 150 ms apart (so the bridge's 10 commands/s budget never delays one); "+
		"the clock starts when the client's Patch returns and stops at the simulator's log entry for the PUT.", len(samples), len(objs))
	return nil
}

// waitForPut waits for a PUT to path with the brightness bri in the
// simulator's command log after index from, and returns its time.
func waitForPut(ctx context.Context, sim *huesim.Server, from int, path string, bri int) (time.Time, error) {
	var at time.Time
	err := waitUntil(ctx, 10*time.Second, 2*time.Millisecond, func() (bool, error) {
		cmds := sim.Commands()
		for _, c := range cmds[min(from, len(cmds)):] {
			if c.Method != "PUT" || c.Path != path {
				continue
			}
			var body struct {
				Bri *int `json:"bri"`
			}
			if json.Unmarshal(c.Body, &body) == nil && body.Bri != nil && *body.Bri == bri {
				at = c.Time
				return true, nil
			}
		}
		return false, nil
	})
	return at, err
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
	u0, err := r.op.usage()
	if err != nil {
		return err
	}
	rc0, err := r.op.reconciles()
	if err != nil {
		return err
	}
	api0, err := r.op.apiRequests()
	if err != nil {
		return err
	}
	start := time.Now()
	rates := sampleEverySecond(r.proxy.Total)
	bgErr := make(chan error, 1)
	go func() { bgErr <- r.createAll(ctx, background) }()
	tables := objects(r.tables)
	if err := r.createAll(ctx, tables); err != nil {
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
	if err != nil {
		return err
	}
	buckets := rates()
	u1, err := r.op.usage()
	if err != nil {
		return err
	}
	rc1, err := r.op.reconciles()
	if err != nil {
		return err
	}
	api1, err := r.op.apiRequests()
	if err != nil {
		return err
	}
	if err := <-bgErr; err != nil {
		return err
	}
	if _, err := r.waitReady(ctx, false, wantAll(background), 5*time.Minute, nil); err != nil {
		return fmt.Errorf("the second bridge's and the outage bridge's lights: %w", err)
	}

	f := r.fig(4)
	f.add("ready", fmt.Sprintf("%d tables: time to all Ready", r.sc.Tables), "s", secs(last.Sub(start)), nil)
	f.add("calls_mean", "calls per table during creation (mean)", "calls", mean(perTable), &goal{Op: "<=", Limit: 3})
	f.why("calls by operation until Ready: %s", formatCounts(byOp))
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
	f.note("Creation phase: %.0f reconciles (all kinds), %.1f CPU s; %d HueLights on two other bridges were created at the same time.",
		reconciles, cpu.Seconds(), len(background))
	more := 0
	for _, n := range perTable {
		if n > 3 {
			more++
		}
	}
	f.note("Calls until each table was first seen Ready, by operation: %s; %d of %d tables took more than 3.", formatCounts(byOp), more, len(perTable))
	f.note("Kubernetes API requests by the operator during creation: %s (%.0f/s).", formatFloatCounts(diff(api1, api0)), (sum(api1)-sum(api0))/last.Sub(start).Seconds())
	f.note("The floor set by the operator's own per-region limiter (%d calls/s, burst %d) is about %.0f s for %d tables at 3 calls each.",
		limiterRate, limiterBurst, math.Max(0, float64(3*r.sc.Tables-limiterBurst))/limiterRate, r.sc.Tables)
	return nil
}

// Figure 2: HueLights on one bridge applied at once, then all set to one
// state.
func (r *run) convergence(ctx context.Context) error {
	sim := r.bridge[bridgeAlpha]
	n := r.sc.ConvergeLights
	floor := time.Duration(float64(n) / bridgeCommandsPerSecond * float64(time.Second))
	r.alphaLights = lightsOn(bridgeAlpha, "", n, 200)
	objs := objects(r.alphaLights)
	sim.ResetCommands()
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	last, err := r.waitReady(ctx, false, wantAll(objs), 3*floor+2*time.Minute, nil)
	if err != nil {
		return err
	}
	took := last.Sub(start)
	cmds := sim.Commands()
	lightCmds, groupCmds := countCommands(cmds)
	f := r.fig(2)
	f.add("ready", fmt.Sprintf("%d HueLights: time to all Ready", n), "s", secs(took), &goal{Op: "<=", Limit: 1.1 * floor.Seconds()})
	if len(cmds) > 0 {
		lastCmd := cmds[len(cmds)-1].Time.Sub(start)
		f.why("the first command went out %.1f s after the first create, the last at %.1f s (the floor is %.0f s), and the last HueLight was Ready %.1f s after that",
			cmds[0].Time.Sub(start).Seconds(), lastCmd.Seconds(), floor.Seconds(), (took - lastCmd).Seconds())
	}
	f.add("overloads", "overload errors from the bridge", "errors", float64(sim.Overloads()), &goal{Op: "<=", Limit: 0})
	f.why("the operator sent light commands faster than the bridge's 10/s")
	f.add("commands", "light commands sent", "commands", float64(lightCmds), nil)
	if len(cmds) > 0 {
		f.add("last_command", "time to the last light command", "s", secs(cmds[len(cmds)-1].Time.Sub(start)), nil)
	}

	// Every light to the same state: one group 0 command could do it in a
	// second; light by light it is the floor again.
	sim.ResetCommands()
	start = time.Now()
	w, err := r.patchAll(ctx, objs, `{"spec":{"brightness":50}}`)
	if err != nil {
		return err
	}
	last, err = r.waitReady(ctx, false, w, 3*floor+2*time.Minute, nil)
	if err != nil {
		return err
	}
	same := last.Sub(start)
	lightCmds, groupCmds = countCommands(sim.Commands())
	f.add("same_state", "same state for all: time to all Ready", "s", secs(same), nil)
	f.add("group_commands", "group commands sent (same state)", "commands", float64(groupCmds), nil)
	f.note("Bridge floor: %d commands at %d/s = %.1f s; goal 1.1x = %.1f s.", n, bridgeCommandsPerSecond, floor.Seconds(), 1.1*floor.Seconds())
	if groupCmds == 0 {
		f.note("Same state for all %d lights: no grouping, %d light commands, %.1f s (%.2fx the floor). "+
			"Grouping does not beat the floor because Tether does not group: one PUT /groups/0/action (budget 1/s) would set them all in about a second.",
			n, lightCmds, same.Seconds(), same.Seconds()/floor.Seconds())
	} else {
		f.note("Same state for all %d lights: %d group and %d light commands, %.1f s (%.2fx the floor).", n, groupCmds, lightCmds, same.Seconds(), same.Seconds()/floor.Seconds())
	}
	return nil
}

func countCommands(cmds []huesim.Command) (lights, groups int) {
	for _, c := range cmds {
		if strings.HasPrefix(c.Path, "/groups") {
			groups++
		} else if strings.HasPrefix(c.Path, "/lights") {
			lights++
		}
	}
	return lights, groups
}

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
	rc0, err := r.op.reconciles()
	if err != nil {
		return err
	}
	api0, err := r.op.apiRequests()
	if err != nil {
		return err
	}
	alpha.ResetGetCounts()
	beta.ResetGetCounts()
	r.proxy.ResetCounts()
	window := time.Duration(r.sc.WatchIntervals) * max(r.sc.HuePoll, r.sc.DDBPoll)
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	gets := []map[string]int{alpha.GetCounts(), beta.GetCounts()}
	calls := r.proxy.Calls()
	rc1, err := r.op.reconciles()
	if err != nil {
		return err
	}
	versions1, err := r.resourceVersions(ctx)
	if err != nil {
		return err
	}
	api1, err := r.op.apiRequests()
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
	f.why("GET /lights alone is %.2f per interval (the shared poller); the rest is %s: each HueBridge reads /config for its health every %s "+
		"(controllers.hueBridgeResync) on top of the poller, so a bridge gets 1 + %s/%s GETs per poll interval",
		float64(worstLights)/hueIntervals, formatCounts(gets[0]), hueBridgeResync, r.sc.HuePoll, hueBridgeResync)
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
	u, err := r.op.usage()
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

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Figure 5: lights dimmed from "the Hue app" and tables' throughput changed
// "in the console", all at once; time until each is put back.
func (r *run) drift(ctx context.Context) error {
	sim := r.bridge[bridgeAlpha]
	nl, nt := min(r.sc.DriftLights, len(r.alphaLights)), min(r.sc.DriftTables, r.sc.ThrottleTables)
	var (
		wg       sync.WaitGroup
		lightsDT []time.Duration
		tablesDT []time.Duration
		lightErr error
		tableErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		lightsDT, lightErr = r.driftLights(ctx, sim, nl)
	}()
	go func() {
		defer wg.Done()
		tablesDT, tableErr = r.driftTables(ctx, nt)
	}()
	wg.Wait()
	if lightErr != nil {
		return lightErr
	}
	if tableErr != nil {
		return tableErr
	}
	f := r.fig(5)
	f.add("hue_p50", "Hue: time to correct (median)", "s", secs(percentile(lightsDT, 50)), nil)
	f.add("hue_max", fmt.Sprintf("Hue: time to correct all %d", nl), "s", secs(percentile(lightsDT, 100)), &goal{Op: "<=", Limit: r.sc.HuePoll.Seconds() + 1})
	f.why("detection takes up to one poll (%s) and the %d corrections then queue behind the bridge's %d commands/s (%.1f s for the last); "+
		"Tether sends one command per light, it does not group same-state corrections", r.sc.HuePoll, nl, bridgeCommandsPerSecond, float64(nl-1)/bridgeCommandsPerSecond)
	f.add("ddb_p50", "DynamoDB: time to correct (median)", "s", secs(percentile(tablesDT, 50)), nil)
	f.add("ddb_max", fmt.Sprintf("DynamoDB: time to correct all %d", nt), "s", secs(percentile(tablesDT, 100)), &goal{Op: "<=", Limit: r.sc.DDBPoll.Seconds() + 5})
	f.why("the poll interval is jittered by up to +10%% (%.1f s here), and every call, polls of the other %d tables included, waits for the shared %d/s limiter",
		0.1*r.sc.DDBPoll.Seconds(), len(r.tables)-nt, limiterRate)
	f.note("%d bulbs dimmed through the simulator's \"Hue app\" control at once: detection waits for the bridge's next poll (%s), then the %d corrections share the bridge's %d commands/s, so the last one cannot come sooner than %.1f s after detection.",
		nl, r.sc.HuePoll, nl, bridgeCommandsPerSecond, float64(nl-1)/bridgeCommandsPerSecond)
	f.note("%d PROVISIONED tables changed from 5/5 to 9/9 capacity with UpdateTable straight to DynamoDB Local, at once; the operator's poll interval is %s, jittered by up to 10%% (so up to %.1f s).",
		nt, r.sc.DDBPoll, 1.1*r.sc.DDBPoll.Seconds())
	return nil
}

func (r *run) driftLights(ctx context.Context, sim *huesim.Server, n int) ([]time.Duration, error) {
	want := map[string]huesim.LightState{}
	for i := range n {
		id := fmt.Sprint(i + 1)
		l, _ := sim.Light(id)
		want[id] = l.State
	}
	start := time.Now()
	for id := range want {
		if err := sim.ChangeLight(id, func(st *huesim.LightState) { st.Bri = 10 }); err != nil {
			return nil, err
		}
	}
	done := map[string]time.Duration{}
	err := waitUntil(ctx, 10*r.sc.HuePoll+time.Duration(n)*time.Second, 20*time.Millisecond, func() (bool, error) {
		for id, st := range want {
			if _, ok := done[id]; ok {
				continue
			}
			if l, _ := sim.Light(id); l.State.Bri == st.Bri && l.State.On == st.On {
				done[id] = time.Since(start)
			}
		}
		return len(done) == len(want), nil
	})
	if err != nil {
		return nil, fmt.Errorf("lights: %d of %d corrected: %w", len(done), n, err)
	}
	return values(done), nil
}

func (r *run) driftTables(ctx context.Context, n int) ([]time.Duration, error) {
	names := make([]string, n)
	for i := range names {
		names[i] = r.tables[i].Name
	}
	start := time.Now()
	err := parallel(n, 16, func(i int) error {
		_, err := r.raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(names[i]),
			ProvisionedThroughput: &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(9)}})
		return err
	})
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	done := map[string]time.Duration{}
	err = waitUntil(ctx, 3*r.sc.DDBPoll+time.Minute, 500*time.Millisecond, func() (bool, error) {
		return len(done) == n, parallel(n, 8, func(i int) error {
			mu.Lock()
			_, ok := done[names[i]]
			mu.Unlock()
			if ok {
				return nil
			}
			out, err := r.raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(names[i])})
			if err != nil {
				return err
			}
			if pt := out.Table.ProvisionedThroughput; pt != nil && aws.ToInt64(pt.ReadCapacityUnits) == 5 && aws.ToInt64(pt.WriteCapacityUnits) == 5 {
				mu.Lock()
				done[names[i]] = time.Since(start)
				mu.Unlock()
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("tables: %d of %d corrected: %w", len(done), n, err)
	}
	return values(done), nil
}

func values(m map[string]time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
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
	health := math.Ceil(outage.Seconds() / hueBridgeResync.Seconds())
	bound := polls + health + 5
	f.add("hue_calls", fmt.Sprintf("Hue: calls to the offline bridge in %s (%d HueLights)", r.sc.Outage, len(objs)), "calls", float64(total), &goal{Op: "<=", Limit: bound})
	f.why("calls by path: %s", formatCounts(calls))
	f.add("hue_calls_per_light", "Hue: calls per HueLight during the outage", "calls", float64(total)/float64(len(objs)), nil)
	f.add("hue_recovery", "Hue: time from back online to all Ready with the change made during the outage", "s", secs(last.Sub(back)), nil)
	f.note("The outage bridge sits behind a counting proxy that, while offline, drops every connection unanswered (a fast failure, the harshest for backoff); calls by path: %s.", formatCounts(calls))
	f.note("Goal bound: one poll per interval (%.0f) + one HueBridge health read per %s (%.0f) + 5 = %.0f calls, whatever the number of lights. Half-way through, all %d lights were changed.",
		polls, hueBridgeResync, health, bound, len(objs))
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

func diff(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func formatFloatCounts(m map[string]float64) string {
	ints := make(map[string]int, len(m))
	for k, v := range m {
		ints[k] = int(v)
	}
	return formatCounts(ints)
}

// sampleEverySecond records how much total() grew in each second until the
// returned stop is called, which returns the per-second growth.
func sampleEverySecond(total func() int) (stop func() []float64) {
	var (
		mu      sync.Mutex
		buckets []float64
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		prev := total()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			now := total()
			mu.Lock()
			buckets = append(buckets, float64(now-prev))
			mu.Unlock()
			prev = now
		}
	}()
	return func() []float64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return buckets
	}
}

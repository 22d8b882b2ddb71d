package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

func init() {
	registerMain(3, "Watch cost", (*run).watchCost)
}

// Figure 3: the steady state over several poll intervals with every object
// created so far.
func (r *run) watchCost(ctx context.Context) error {
	alpha, beta := r.bridge[bridgeAlpha], r.bridge[bridgeBeta]
	// The window starts one Hue poll interval after the last change (the
	// last of figure 2's HueLights Ready): whatever a change still writes
	// after that counts as rewritten.
	if err := r.sleep(ctx, time.Until(r.lastChange.Add(r.sc.HuePoll))); err != nil {
		return err
	}
	objects0, err := r.objectsNow(ctx)
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
	objects1, err := r.objectsNow(ctx)
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
		float64(worstLights)/hueIntervals, FormatCounts(gets[0]))
	f.add("hue_lights_gets", "Hue: GET /lights per bridge per poll interval", "GETs", float64(worstLights)/hueIntervals, nil)
	f.add("ddb_calls", "DynamoDB: calls per table per poll interval", "calls", float64(totalCalls)/float64(r.sc.Tables)/ddbIntervals, &goal{Op: "<=", Limit: 1.1})
	f.why("calls by operation: %s", FormatCounts(calls))
	f.add("ddb_describes", "DynamoDB: DescribeTable per table per poll interval", "calls", float64(calls["DescribeTable"])/float64(r.sc.Tables)/ddbIntervals, nil)
	lightRec := rc1["huelight"] - rc0["huelight"]
	tableRec := rc1["dynamodbtable"] - rc0["dynamodbtable"]
	f.add("light_reconciles", "HueLight reconciles per light per Hue poll interval", "reconciles", lightRec/float64(r.sc.WatchLights+r.sc.OutageLights+latencyLights(r.sc))/hueIntervals, nil)
	f.add("table_reconciles", "DynamoDBTable reconciles per table per DynamoDB poll interval", "reconciles", tableRec/float64(r.sc.Tables)/ddbIntervals, nil)
	rewritten, parts := rewrites(objects0, objects1)
	f.add("rewritten", "objects rewritten during the window", "objects", float64(rewritten), nil)
	f.note("What differed in the objects rewritten during the window, by kind and namespace: %s.", FormatCounts(parts))
	f.note("The window starts one Hue poll interval (%s) after the last change, figure 2's last HueLight Ready; a status write a change still makes after that is a rewrite.",
		r.sc.HuePoll)
	f.note("Window: %s = %d x the longer poll interval, with %d HueLights on two bridges (%d more on two others) and %d DynamoDBTables. "+
		"Poll intervals shortened with the manager's flags to keep the run short: --hue-poll-interval=%s (the default), --dynamodbtable-poll-interval=%s (default 2m).",
		window, r.sc.WatchIntervals, r.sc.WatchLights, r.sc.OutageLights+latencyLights(r.sc), r.sc.Tables, r.sc.HuePoll, r.sc.DDBPoll)
	f.note("GETs by path, per bridge: %s; DynamoDB calls by operation: %s; Kubernetes API requests by the operator: %s.",
		FormatCounts(gets[0])+" | "+FormatCounts(gets[1]), FormatCounts(calls), formatFloatCounts(diff(api1, api0)))

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

// objectsNow lists the HueLights and DynamoDBTables in the harness's cache
// as unstructured content, by kind/namespace/name.
func (r *run) objectsNow(ctx context.Context) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	add := func(kind string, o client.Object) error {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		out[kind+"/"+keyOf(o)] = u
		return nil
	}
	var lights huev1alpha1.HueLightList
	if err := r.cache.List(ctx, &lights); err != nil {
		return nil, err
	}
	for i := range lights.Items {
		if err := add("HueLight", &lights.Items[i]); err != nil {
			return nil, err
		}
	}
	var tables awsv1alpha1.DynamoDBTableList
	if err := r.cache.List(ctx, &tables); err != nil {
		return nil, err
	}
	for i := range tables.Items {
		if err := add("DynamoDBTable", &tables.Items[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rewrites counts the objects whose resourceVersion changed between two
// listings, and names what differed in each (spec, or a status field) by
// kind and namespace, so that a steady state that is not quiet says why.
func rewrites(before, after map[string]map[string]any) (int, map[string]int) {
	n, parts := 0, map[string]int{}
	for key, a := range after {
		b, ok := before[key]
		if !ok || resourceVersionOf(a) == resourceVersionOf(b) {
			continue
		}
		n++
		kind, rest, _ := strings.Cut(key, "/")
		ns, _, _ := strings.Cut(rest, "/")
		for _, field := range changedFields(b, a) {
			parts[fmt.Sprintf("%s in %s: %s", kind, ns, field)]++
		}
	}
	return n, parts
}

func resourceVersionOf(u map[string]any) string {
	v, _, _ := unstructured.NestedString(u, "metadata", "resourceVersion")
	return v
}

// changedFields names spec and the status fields that differ between two
// versions of an object ("metadata" when only metadata did).
func changedFields(before, after map[string]any) []string {
	var out []string
	if !equality.Semantic.DeepEqual(before["spec"], after["spec"]) {
		out = append(out, "spec")
	}
	sb, _, _ := unstructured.NestedMap(before, "status")
	sa, _, _ := unstructured.NestedMap(after, "status")
	for _, k := range sortedUnion(sb, sa) {
		if !equality.Semantic.DeepEqual(sb[k], sa[k]) {
			out = append(out, "status."+k)
		}
	}
	if len(out) == 0 {
		out = append(out, "metadata")
	}
	return out
}

func sortedUnion(a, b map[string]any) []string {
	both := maps.Clone(a)
	if both == nil {
		both = map[string]any{}
	}
	maps.Copy(both, b)
	return slices.Sorted(maps.Keys(both))
}

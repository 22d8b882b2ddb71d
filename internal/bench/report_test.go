package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/huesim"
)

// Two runs of made-up figures: medians, missed goals with their reasons,
// failures and the design checks come out of aggregate as the report says.
func TestAggregate(t *testing.T) {
	run := func(latency, gets, lightsGets float64, failure string) []figureResult {
		figs := make([]figureResult, 6)
		for i := range figs {
			figs[i] = figureResult{ID: i + 1, Title: figureTitles[i+1]}
		}
		figs[0].add("p50", "p50 latency", "ms", latency, &goal{Op: "<=", Limit: 30})
		figs[0].why("slow")
		figs[1].add("overloads", "overload errors", "errors", 0, &goal{Op: "<=", Limit: 0})
		figs[1].add("group_commands", "group commands", "commands", 0, nil)
		figs[2].add("hue_gets", "GETs per bridge", "GETs", gets, &goal{Op: "<=", Limit: 1})
		figs[2].why("config reads")
		figs[2].add("hue_lights_gets", "GET /lights", "GETs", lightsGets, nil)
		figs[2].add("light_reconciles", "reconciles", "reconciles", 0, nil)
		figs[2].add("ddb_describes", "describes", "calls", 1, nil)
		figs[3].add("rate_10s", "rate", "calls/s", 30, nil)
		figs[5].Failure = failure
		return figs
	}
	rep := aggregate([][]figureResult{run(10, 1.2, 1, ""), run(50, 1.1, 1, "bridge never came back"), run(20, 1.2, 1, "")},
		Options{Runs: 3, Scale: FullScale()})

	if got, _ := rep.measure(1, "p50"); got != 20 {
		t.Errorf("p50 median = %v, want 20", got)
	}
	if got, _ := rep.measure(3, "hue_gets"); got != 1.2 {
		t.Errorf("hue_gets median = %v, want 1.2", got)
	}
	missed := strings.Join(rep.Missed, "\n")
	for _, want := range []string{"GETs per bridge is 1.2 GETs, goal <= 1 GETs. Why: config reads", "Figure 6 (Backoff discipline) failed in run 2: bridge never came back"} {
		if !strings.Contains(missed, want) {
			t.Errorf("missed lines lack %q:\n%s", want, missed)
		}
	}
	if strings.Contains(missed, "p50 latency") {
		t.Errorf("p50 latency (median 20 ms, goal 30 ms) reported missed:\n%s", missed)
	}
	checks := strings.Join(rep.Checks, "\n")
	for _, want := range []string{"Per-object polling (Hue): none.", "Extra reads (Hue)", "Duplicate describes (DynamoDB): none.", "Unshared limiters: none;", "Grouping: none."} {
		if !strings.Contains(checks, want) {
			t.Errorf("design checks lack %q:\n%s", want, checks)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"## Goals missed", "## Design checks", "## 6. Backoff discipline", "**Failed** in run 2", "| p50 latency | 20 ms | 10, 50, 20 | <= 30 ms | met |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestCommandPace(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) huesim.Command { return huesim.Command{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }
	// Six commands 100 ms apart but for one 500 ms gap: 400 ms lost.
	cmds := []huesim.Command{at(0), at(100), at(200), at(700), at(800), at(900)}
	rate, idle := commandPace(cmds)
	if idle != 400*time.Millisecond {
		t.Errorf("idle = %s, want 400ms", idle)
	}
	if rate < 5.5 || rate > 5.6 {
		t.Errorf("rate = %.2f/s, want 5 commands in 0.9 s", rate)
	}
}

func TestReportSaysWhetherMakeBenchWroteIt(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    bool
	}{
		{"", true},
		{"-runs=3", true},
		{"-runs=3 -figures=10 -out=bench/scenes", false},
		{"-quick", false},
	} {
		md := (&Report{Command: tc.command}).Markdown()
		if got := strings.Contains(md, "(what `make bench` runs)"); got != tc.want {
			t.Errorf("command %q: says it is make bench's = %v, want %v", tc.command, got, tc.want)
		}
	}
}

func TestRewritesNameWhatDiffered(t *testing.T) {
	obj := func(rv string, bri int64, observed int64) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"resourceVersion": rv},
			"spec":     map[string]any{"brightness": bri},
			"status":   map[string]any{"observed": map[string]any{"brightness": observed}, "observedGeneration": int64(1)},
		}
	}
	before := map[string]map[string]any{
		"HueLight/a/same":     obj("1", 10, 10),
		"HueLight/a/observed": obj("2", 10, 9),
		"HueLight/b/spec":     obj("3", 10, 10),
		"HueLight/b/labels":   obj("4", 10, 10),
	}
	after := map[string]map[string]any{
		"HueLight/a/same":     obj("1", 10, 10),
		"HueLight/a/observed": obj("5", 10, 10),
		"HueLight/b/spec":     obj("6", 20, 10),
		"HueLight/b/labels":   obj("7", 10, 10),
		"HueLight/b/new":      obj("8", 10, 10),
	}
	n, parts := rewrites(before, after)
	if n != 3 {
		t.Errorf("rewritten = %d, want 3 (a new object is not a rewrite)", n)
	}
	want := "HueLight in a: status.observed 1, HueLight in b: metadata 1, HueLight in b: spec 1"
	if got := FormatCounts(parts); got != want {
		t.Errorf("parts = %s, want %s", got, want)
	}
}

// A time measured against its floor: the verdict is on the median ratio, so
// runs on machines of different speeds (their floors moving with them) read
// the same; the measure keeps its key, label and unit.
func TestFlooredMeasureIsJudgedOnItsRatio(t *testing.T) {
	run := func(took, floorValue float64) []figureResult {
		f := figureResult{ID: 2, Title: figureTitles[2]}
		f.addFloored("ready", "500 HueLights: time to all Ready", "s", took, floor{What: "the bridge's budget", Value: floorValue}, 1.1)
		f.why("gaps between commands")
		return []figureResult{f}
	}
	// A slow machine: twice the floor, 1.05x each time. A fast one: 1.2x.
	slow := aggregate([][]figureResult{run(105, 100), run(104, 100), run(106, 100)}, Options{Runs: 3, Scale: FullScale()})
	fast := aggregate([][]figureResult{run(60, 50), run(61, 50), run(59, 50)}, Options{Runs: 3, Scale: FullScale()})
	if len(slow.Missed) != 0 {
		t.Errorf("1.05x the floor reported missed: %v", slow.Missed)
	}
	if got, _ := slow.measure(2, "ready"); got != 105 {
		t.Errorf("the measure itself = %v s, want 105 (same key and unit as before)", got)
	}
	if len(fast.Missed) != 1 || !strings.Contains(fast.Missed[0], "500 HueLights: time to all Ready: its ratio to the floor is 1.2 x, goal <= 1.1 x. Why: gaps between commands") {
		t.Errorf("1.2x the floor: missed = %v", fast.Missed)
	}
	md := fast.Markdown()
	for _, want := range []string{"| 500 HueLights: time to all Ready | 60 s | 60, 61, 59 | <= 1.1x its floor (next rows) |  |",
		"| its floor: the bridge's budget | 50 s |", "| its ratio to the floor | 1.2 x | 1.2, 1.22, 1.18 | <= 1.1 x | **missed** |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// TestEveryModelHasSpecs: figure 9 and the soak give every simulated bulb
// model a spec in its reach and one beyond it; a model added to the
// simulator without them would get two HueLights of one name.
func TestEveryModelHasSpecs(t *testing.T) {
	for _, model := range huesim.ModelIDs() {
		specs, ok := modelSpecs[model]
		if !ok || specs[0].kind != "in" || specs[1].kind != "out" {
			t.Errorf("model %s has no in and out specs in modelSpecs", model)
		}
	}
}

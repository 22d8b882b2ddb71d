package soak

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/repo"
)

// Report is what soak/report.json holds; report.md says the same in prose.
type Report struct {
	Date    string        `json:"date"`
	Command string        `json:"command"`
	Commit  string        `json:"commit"`
	Machine bench.Machine `json:"machine"`
	// Took is the whole run, setup and settle included.
	Took     string   `json:"took"`
	Settings Settings `json:"settings"`
	Objects  Objects  `json:"objects"`
	// Injected counts the changes made behind Tether's back, by kind.
	Injected      map[string]int `json:"injected"`
	InjectedTotal int            `json:"injectedTotal"`
	// LastRefusal is why DynamoDB Local last refused an out-of-band change.
	LastRefusal string `json:"lastRefusal,omitempty"`
	Flaps       []flap `json:"flaps"`
	SettleTook  string `json:"settleTook"`
	// AtMischiefEnd is the check made as the mischief ended, before the
	// settle: what the settle had to put right.
	AtMischiefEnd string `json:"atMischiefEnd"`
	// SettleProgress is, at each check of the settle, the time since the
	// mischief ended and how many problems (not Ready, differing) were left.
	SettleProgress []string       `json:"settleProgress"`
	Settled        bool           `json:"settled"`
	Verdicts       []Verdict      `json:"verdicts"`
	Passed         bool           `json:"passed"`
	Goroutines     Growth         `json:"goroutineGrowth"`
	Heap           Growth         `json:"heapGrowth"`
	RSS            Growth         `json:"rssGrowth"`
	ErrorsPerMin   []int          `json:"errorLinesPerMinute"`
	TopErrors      []MessageCount `json:"topErrors"`
	LogLines       map[string]int `json:"logLinesByLevel"`
	Summary        []SummaryRow   `json:"summary"`
	Series         []Sample       `json:"series"`
	LogKept        string         `json:"logKept,omitempty"`
	// DynamoDBCalls are the manager's calls by operation (counted by the
	// proxy in front of DynamoDB Local), AccountCalls the AWSAccount's
	// (counted by the proxy in front of the model).
	DynamoDBCalls map[string]int `json:"dynamoDBCalls"`
	AccountCalls  map[string]int `json:"accountCalls,omitempty"`
	// Restarts counts the manager's restarts.
	Restarts int `json:"restarts"`
}

// Settings are the soak's options as strings.
type Settings struct {
	Duration       string   `json:"duration"`
	FlapEvery      string   `json:"flapEvery"`
	FlapFor        string   `json:"flapFor"`
	ChangeEvery    string   `json:"changeEvery"`
	SpecEditEvery  string   `json:"specEditEvery"`
	SampleEvery    string   `json:"sampleEvery"`
	WarmUp         string   `json:"warmUp"`
	SettleTimeout  string   `json:"settleTimeout"`
	BurstEvery     string   `json:"burstEvery"`
	BurstLights    int      `json:"burstLights"`
	GroupEditEvery string   `json:"groupEditEvery"`
	StreamCutEvery string   `json:"streamCutEvery"`
	ThrottleEvery  string   `json:"throttleEvery"`
	ThrottleFor    string   `json:"throttleFor"`
	RestartEvery   string   `json:"restartEvery"`
	ManagerFlags   []string `json:"managerFlags"`
	Limits         Limits   `json:"limits"`
	Seed           uint64   `json:"seed"`
}

// Objects are what the manager managed.
type Objects struct {
	Lights    int            `json:"hueLights"`
	Bridges   int            `json:"bridges"`
	V2Bridges int            `json:"v2Bridges"`
	Models    int            `json:"modelLights"`
	Groups    int            `json:"hueGroups"`
	Scenes    int            `json:"hueScenes"`
	Tables    int            `json:"dynamoDBTables"`
	ByKind    map[string]int `json:"tablesByKind"`
	// AccountTables are the AWSAccount's, by sample.
	AccountTables int            `json:"accountTables"`
	AccountByKind map[string]int `json:"accountTablesBySample"`
}

// SummaryRow is one stretch of the time series.
type SummaryRow struct {
	From       float64 `json:"from"`
	To         float64 `json:"to"`
	Phase      string  `json:"phase"`
	Goroutines float64 `json:"goroutines"`
	RSSMB      float64 `json:"rssMB"`
	HeapMB     float64 `json:"heapMB"`
	HeapGoalMB float64 `json:"heapGoalMB"`
	Reconciles float64 `json:"reconcilesPerMin"`
	Errors     int     `json:"errorLines"`
}

func (s *soak) report(m *mischief, sm *sampler, final check, settled bool, settleTook time.Duration, start, mischiefEnd, end time.Time) *Report {
	o := s.opts
	rep := &Report{
		Date:    time.Now().UTC().Format(time.RFC3339),
		Commit:  s.commit,
		Machine: bench.CurrentMachine(),
		Settings: Settings{Duration: o.Duration.String(), FlapEvery: o.FlapEvery.String(), FlapFor: o.FlapFor.String(),
			ChangeEvery: o.ChangeEvery.String(), SpecEditEvery: o.SpecEditEvery.String(), SampleEvery: o.SampleEvery.String(),
			WarmUp: o.WarmUp.String(), SettleTimeout: o.SettleTimeout.String(), ManagerFlags: o.managerFlags(), Limits: o.Limits, Seed: o.Seed,
			BurstEvery: o.BurstEvery.String(), BurstLights: o.BurstLights, GroupEditEvery: o.GroupEditEvery.String(), StreamCutEvery: o.StreamCutEvery.String(),
			ThrottleEvery: o.ThrottleEvery.String(), ThrottleFor: o.ThrottleFor.String(), RestartEvery: o.RestartEvery.String()},
		Objects: Objects{Lights: len(s.lights) + len(s.models), Bridges: o.Bridges, V2Bridges: o.V2Bridges, Models: len(s.models),
			Groups: len(s.groups), Scenes: len(s.scenes), Tables: len(s.tables), ByKind: tableKinds(s.tables),
			AccountTables: len(s.accountTables), AccountByKind: sampleKinds(s.accountTables)},
		Injected:      map[string]int{},
		SettleTook:    settleTook.Round(time.Second).String(),
		Settled:       settled,
		DynamoDBCalls: s.w.Proxy.Calls(),
	}
	if s.accountProxy != nil {
		rep.AccountCalls = s.accountProxy.Calls()
	}
	m.mu.Lock()
	for k, v := range m.counts {
		rep.Injected[k] = v
		if k != faultTableRefused {
			rep.InjectedTotal += v
		}
	}
	rep.Flaps = append([]flap(nil), m.flaps...)
	rep.LastRefusal = m.lastRefusal
	m.mu.Unlock()
	sm.mu.Lock()
	rep.Series = append([]Sample(nil), sm.samples...)
	failures, lastErr := sm.failures, sm.lastErr
	sm.mu.Unlock()

	var rss []float64
	for _, x := range rep.Series {
		if x.Phase == phaseMischief {
			rss = append(rss, float64(x.RSSBytes))
		}
	}
	vg, g := flatPerProcess("Goroutines flat", fmt.Sprintf("growth <= max(+%.0f%%, +%.0f) from the first third to the last (medians, after warm-up)", o.Limits.GoroutinePct, o.Limits.GoroutineAbs),
		processSeries(rep.Series, o.WarmUp, func(x Sample) float64 { return x.Goroutines }), func(xs []float64) (Verdict, Growth) { return flatGoroutines(xs, o.Limits) })
	vh, h := flatPerProcess("Heap flat", heapThreshold(o.Limits),
		processSeries(rep.Series, o.WarmUp, func(x Sample) float64 { return x.HeapGoal }), func(xs []float64) (Verdict, Growth) { return flatHeap(xs, o.Limits) })
	rep.Goroutines, rep.Heap = g, h
	rep.RSS, _ = growthOf(rss)
	rep.ErrorsPerMin = s.log.perMinute(start, mischiefEnd)
	rep.TopErrors = s.log.top(5)
	rep.LogLines = s.log.levels
	lines, panics := s.log.lines()
	m.mu.Lock()
	windows, restarts := append([]window(nil), m.windows...), m.restarts
	m.mu.Unlock()
	rep.Restarts = restarts
	resent := s.resent()
	rep.Verdicts = []Verdict{
		readyVerdict(final, settled, settleTook),
		lightsVerdict(final, settled, settleTook),
		tablesVerdict(final, settled, settleTook),
		resentVerdict(resent),
		stallVerdict(resent, restarts, stallAfter),
		tempScenesVerdict(final),
		vg, vh,
		errorsExplained(lines, windows, o.faultGrace, panics),
		samplerVerdict(failures, lastErr, len(rep.Series)),
	}
	rep.Passed = true
	for _, v := range rep.Verdicts {
		rep.Passed = rep.Passed && v.Passed
	}
	rep.Summary = summarize(rep.Series, 12)
	return rep
}

func tableKinds(ts []*awsv1alpha1.DynamoDBTable) map[string]int {
	out := map[string]int{}
	for _, t := range ts {
		k := t.Spec.BillingMode
		if hasGSI(t) {
			k += " with an index"
		}
		out[k]++
	}
	return out
}

// sampleKinds counts the account's tables by the sample each copies.
func sampleKinds(ts []*awsv1alpha1.DynamoDBTable) map[string]int {
	out := map[string]int{}
	for _, t := range ts {
		out[strings.TrimRight(t.Name, "-0123456789")]++
	}
	return out
}

// reconcilesIn counts the reconciles between the first and the last of
// consecutive samples: a restarted manager counts from 0 again.
func reconcilesIn(samples []Sample) float64 {
	total := 0.0
	for i := 1; i < len(samples); i++ {
		prev, cur := samples[i-1], samples[i]
		if cur.Process != prev.Process {
			total += cur.Reconciles
		} else {
			total += cur.Reconciles - prev.Reconciles
		}
	}
	return total
}

// summarize cuts the series into about n stretches of equal length (the
// settle gets its own) and gives each one's medians and rates.
func summarize(series []Sample, n int) []SummaryRow {
	var rows []SummaryRow
	var cur []Sample
	flush := func(next *Sample) {
		if len(cur) == 0 {
			return
		}
		var g, r, h, hg []float64
		for _, x := range cur {
			g = append(g, x.Goroutines)
			r = append(r, float64(x.RSSBytes)/1e6)
			h = append(h, x.HeapBytes/1e6)
			hg = append(hg, x.HeapGoal/1e6)
		}
		first, last := cur[0], cur[len(cur)-1]
		// Rates run to the next stretch's first sample, so no interval is lost.
		if next != nil {
			last = *next
		}
		row := SummaryRow{From: first.At, To: last.At, Phase: cur[0].Phase,
			Goroutines: bench.Median(g), RSSMB: round1(bench.Median(r)), HeapMB: round1(bench.Median(h)), HeapGoalMB: round1(bench.Median(hg)),
			Errors: last.ErrorLines - first.ErrorLines}
		if dt := last.At - first.At; dt > 0 {
			span := append(append([]Sample(nil), cur...), last)
			row.Reconciles = round1(reconcilesIn(span) / dt * 60)
		}
		rows = append(rows, row)
		cur = nil
	}
	if len(series) == 0 {
		return nil
	}
	span := series[len(series)-1].At - series[0].At
	step := max(span/float64(n), 1)
	for i := range series {
		x := series[i]
		if len(cur) > 0 && (x.Phase != cur[0].Phase || x.At-cur[0].At >= step) {
			flush(&series[i])
		}
		cur = append(cur, x)
	}
	flush(nil)
	return rows
}

func formatFloatCounts(m map[string]float64) string {
	ints := map[string]int{}
	for k, v := range m {
		ints[k] = int(v)
	}
	return bench.FormatCounts(ints)
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// commit is the checked-out commit, marked when the tree has changes; Run
// reads it before building the manager, as that is what is measured.
func commit() string {
	root, err := repo.Root()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += " (with uncommitted changes)"
	}
	return c
}

// WriteFiles writes report.md and report.json into dir.
func (r *Report) WriteFiles(dir string) error { return bench.WriteReport(dir, r, r.Markdown()) }

// Markdown is the report for people.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	verdict := "PASSED"
	if !r.Passed {
		verdict = "FAILED"
	}
	w("# Tether soak report\n\n")
	if d, err := time.ParseDuration(r.Settings.Duration); err == nil && d < FullOptions().Duration {
		w("> **Short run** (%s of mischief, %d lights, %d tables): a check of the harness, not the %s soak, which replaces this report.\n\n",
			r.Settings.Duration, r.Objects.Lights, r.Objects.Tables+r.Objects.AccountTables, FullOptions().Duration)
	}
	w("**%s**: %s of mischief against %d HueLights (%d of them of every bulb model, in and beyond their reach) on %d v1 and %d CLIP v2 simulated bridges, %d HueGroups showing %d HueScenes, "+
		"%d DynamoDBTables (DynamoDB Local) and %d of an AWSAccount (an assumed role; replicas, autoscaling and the newer features on the model of what DynamoDB Local lacks), "+
		"managed by the manager binary in its own process, restarted %d times.\n\n",
		verdict, r.Settings.Duration, r.Objects.Lights, r.Objects.Models, r.Objects.Bridges, r.Objects.V2Bridges, r.Objects.Groups, r.Objects.Scenes,
		r.Objects.Tables, r.Objects.AccountTables, r.Restarts)
	w("- Date: %s; commit %s; the whole run took %s.\n", r.Date, r.Commit, r.Took)
	w("- Command: `%s`\n", r.Command)
	w("- At the end of the mischief: %s. Problems left at each check of the settle: %s.\n", r.AtMischiefEnd, strings.Join(r.SettleProgress, ", "))
	w("- Machine: %d cores, %.1f GiB memory%s; %s, %s.\n", r.Machine.Cores, r.Machine.MemoryGB, cpuText(r.Machine.CPU), r.Machine.Go, r.Machine.OS)
	w("- Manager flags: `%s` (drift on a table is found within one poll, jittered by up to 10%%; bulbs are read once per poll per bridge).\n", strings.Join(r.Settings.ManagerFlags, " "))
	kinds := make([]string, 0, len(r.Objects.ByKind))
	for k, n := range r.Objects.ByKind {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	w("- Tables: %s; the AWSAccount's, copies of the samples' tables: %s. Lights: a third with a colour temperature, a third with hue and saturation, a third brightness only; "+
		"with two bridges of a kind, the last flaps; the first v2 bridge's connections are cut now and then; the model lights and the groups are on the first bridge of each kind.\n",
		strings.Join(kinds, ", "), bench.FormatCounts(r.Objects.AccountByKind))
	if r.LogKept != "" {
		w("- The manager's log was kept in `%s`.\n", r.LogKept)
	}
	w("\n## Verdicts\n\n| Verdict | Result | Value | Threshold | Evidence |\n|---|---|---|---|---|\n")
	for _, v := range r.Verdicts {
		res := "pass"
		if !v.Passed {
			res = "**FAIL**"
		}
		w("| %s | %s | %s | %s | %s |\n", v.Name, res, v.Value, v.Threshold, cell(v.Evidence))
	}
	w("\nRSS (reported, not judged: the Go runtime returns memory to the OS lazily): median %.1f MB in the first third, %.1f MB in the last (%+.1f%%).\n",
		r.RSS.First/1e6, r.RSS.Last/1e6, r.RSS.Pct)
	w("\n## Injected changes (%d)\n\n| Change | Count |\n|---|---|\n", r.InjectedTotal)
	keys := make([]string, 0, len(r.Injected))
	for k := range r.Injected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w("| %s | %d |\n", k, r.Injected[k])
	}
	if r.LastRefusal != "" {
		w("\nThe last out-of-band change DynamoDB Local refused: %s\n", cell(r.LastRefusal))
	}
	if n := len(r.Series); n > 0 {
		w("\nThe manager counted %s drift corrections (`tether_drift_corrections_total`, by kind) over the run.\n", formatFloatCounts(r.Series[n-1].Drift))
	}
	w("\nEvery %s the flapping bridges went offline for %s, alternating a refused connection (unplugged) with a hanging one (unreachable network): %d flaps. ",
		r.Settings.FlapEvery, r.Settings.FlapFor, len(r.Flaps))
	w("Bulbs were dimmed, switched off or recoloured through the simulator's \"Hue app\" control, tables' capacity or billing mode changed with UpdateTable straight at DynamoDB Local (a change every ~%s on average), and specs edited through the API server (every ~%s). ",
		r.Settings.ChangeEvery, r.Settings.SpecEditEvery)
	w("Every ~%s %d HueLights of one bridge were given states of their own at once (a temporary scene's work), every ~%s a HueGroup switched between its scene and a brightness; "+
		"every %s the first v2 bridge's connections were cut (its event stream among them), every %s both DynamoDB endpoints throttled half the calls for %s, and every %s the manager was restarted (SIGTERM and SIGKILL in turn). ",
		r.Settings.BurstEvery, r.Settings.BurstLights, r.Settings.GroupEditEvery, r.Settings.StreamCutEvery, r.Settings.ThrottleEvery, r.Settings.ThrottleFor, r.Settings.RestartEvery)
	w("Then nothing more was changed, the bridges were online, and the settle waited (up to %s) for every object to be Ready and to match: %s.\n", r.Settings.SettleTimeout, settledText(r))
	w("\n## Time series\n\nSampled every %s from the manager: `go_goroutines`, `go_memstats_heap_alloc_bytes` and the GC's heap goal `go_memstats_next_gc_bytes` from its metrics endpoint, RSS from /proc, `controller_runtime_reconcile_total`, and error-level lines of its JSON log. Medians per stretch; the first %s of each manager process is warm-up and left out of the flatness verdicts, which compare each process's own thirds. The full series is in report.json.\n\n",
		r.Settings.SampleEvery, r.Settings.WarmUp)
	w("| From (s) | To (s) | Phase | Goroutines | RSS (MB) | Heap (MB) | Heap goal (MB) | Reconciles/min | Error lines |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Summary {
		w("| %.0f | %.0f | %s | %.0f | %.1f | %.1f | %.1f | %.1f | %d |\n", row.From, row.To, row.Phase, row.Goroutines, row.RSSMB, row.HeapMB, row.HeapGoalMB, row.Reconciles, row.Errors)
	}
	w("\nError lines per minute of the mischief: %v. The manager's log lines by level over the whole run: %s.\n", r.ErrorsPerMin, bench.FormatCounts(r.LogLines))
	if len(r.TopErrors) > 0 {
		w("\nMost frequent error lines:\n\n")
		for _, m := range r.TopErrors {
			w("- %d× `%s`\n", m.Count, strings.ReplaceAll(m.Message, "`", "'"))
		}
	}
	ops := make([]string, 0, len(r.DynamoDBCalls))
	for op, n := range r.DynamoDBCalls {
		ops = append(ops, fmt.Sprintf("%s %d", op, n))
	}
	sort.Strings(ops)
	w("\nThe manager's DynamoDB calls over the whole run: %s; the AWSAccount's (through the model): %s.\n", strings.Join(ops, ", "), bench.FormatCounts(r.AccountCalls))
	return b.String()
}

func settledText(r *Report) string {
	if r.Settled {
		return "done after " + r.SettleTook
	}
	return "not done after " + r.SettleTook
}

func cpuText(cpu string) string {
	if cpu == "" {
		return ""
	}
	return " (" + cpu + ")"
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

package soak

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/providers"
)

// Verdict is one pass/fail judgement with its evidence.
type Verdict struct {
	Name      string `json:"name"`
	Passed    bool   `json:"passed"`
	Value     string `json:"value"`
	Threshold string `json:"threshold"`
	Evidence  string `json:"evidence"`
}

// Growth compares the median of the first third of a series with the
// median of its last third.
type Growth struct {
	Samples int     `json:"samples"`
	First   float64 `json:"firstThirdMedian"`
	Last    float64 `json:"lastThirdMedian"`
	Abs     float64 `json:"growth"`
	Pct     float64 `json:"growthPct"`
}

// minThird is the fewest samples a third may hold for the comparison to
// mean anything.
const minThird = 3

// growthOf compares the thirds of xs; ok is false when there are too few.
func growthOf(xs []float64) (g Growth, ok bool) {
	g.Samples = len(xs)
	third := len(xs) / 3
	if third < minThird {
		return g, false
	}
	g.First = bench.Median(xs[:third])
	g.Last = bench.Median(xs[len(xs)-third:])
	g.Abs = g.Last - g.First
	if g.First > 0 {
		g.Pct = 100 * g.Abs / g.First
	}
	return g, true
}

// processSeries are, per manager process, the values of its samples of
// the mischief taken after its own warm-up (a restart starts the heap and
// the goroutines over).
func processSeries(series []Sample, warmUp time.Duration, value func(Sample) float64) map[int][]float64 {
	out := map[int][]float64{}
	for _, x := range series {
		if x.Phase == phaseMischief && x.Since >= warmUp.Seconds() {
			out[x.Process] = append(out[x.Process], value(x))
		}
	}
	return out
}

// flatPerProcess judges each process's series with judge and passes when
// every one that has enough samples passes; the verdict shows the process
// that grew most.
func flatPerProcess(name, threshold string, series map[int][]float64, judge func([]float64) (Verdict, Growth)) (Verdict, Growth) {
	v := Verdict{Name: name, Threshold: threshold + ", within each manager process"}
	var worst Growth
	var parts []string
	measured, passed := 0, true
	for _, n := range sortedKeys(series) {
		pv, g := judge(series[n])
		if pv.Value == "not measured" {
			parts = append(parts, fmt.Sprintf("process %d: %d samples, not measured", n, len(series[n])))
			continue
		}
		measured++
		passed = passed && pv.Passed
		parts = append(parts, fmt.Sprintf("process %d: %s (%s)", n, pv.Value, pv.Evidence))
		if measured == 1 || g.Pct > worst.Pct {
			worst, v.Value = g, pv.Value
		}
	}
	v.Passed = measured > 0 && passed
	if measured == 0 {
		v.Value = "not measured"
	}
	v.Evidence = strings.Join(parts, "; ")
	if v.Evidence == "" {
		v.Evidence = "no sample of the mischief after a warm-up"
	}
	return v, worst
}

func sortedKeys(m map[int][]float64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// flatGoroutines passes when goroutines grew by at most limits.GoroutinePct
// percent or limits.GoroutineAbs, whichever allows more.
func flatGoroutines(xs []float64, l Limits) (Verdict, Growth) {
	v := Verdict{Name: "Goroutines flat",
		Threshold: fmt.Sprintf("growth <= max(+%.0f%%, +%.0f) from the first third to the last (medians, after warm-up)", l.GoroutinePct, l.GoroutineAbs)}
	g, ok := growthOf(xs)
	if !ok {
		v.Value = "not measured"
		v.Evidence = fmt.Sprintf("%d samples after warm-up, need %d", len(xs), 3*minThird)
		return v, g
	}
	allowed := max(g.First*l.GoroutinePct/100, l.GoroutineAbs)
	v.Passed = g.Abs <= allowed+1e-9
	v.Value = fmt.Sprintf("%+.0f (%+.1f%%)", g.Abs, g.Pct)
	v.Evidence = fmt.Sprintf("median %.0f in the first third, %.0f in the last (%d samples); allowed growth %.0f", g.First, g.Last, g.Samples, allowed)
	return v, g
}

// flatHeap passes when the live heap grew by at most limits.HeapPct
// percent, judged on the GC's heap goal (Sample.HeapGoal): the allocated
// heap climbs between two collections and drops at each, so 15 samples of
// it in a young process can show a sawtooth's phase as growth.
func flatHeap(xs []float64, l Limits) (Verdict, Growth) {
	v := Verdict{Name: "Heap flat", Threshold: heapThreshold(l)}
	g, ok := growthOf(xs)
	if !ok {
		v.Value = "not measured"
		v.Evidence = fmt.Sprintf("%d samples after warm-up, need %d", len(xs), 3*minThird)
		return v, g
	}
	v.Passed = g.Pct <= l.HeapPct+1e-9
	v.Value = fmt.Sprintf("%+.1f%%", g.Pct)
	v.Evidence = fmt.Sprintf("median %.1f MB in the first third, %.1f MB in the last (%d samples)", g.First/1e6, g.Last/1e6, g.Samples)
	return v, g
}

func heapThreshold(l Limits) string {
	return fmt.Sprintf("growth <= +%.0f%% from the first third to the last (medians of the heap goal the last GC set, go_memstats_next_gc_bytes, which grows as the live heap does; after warm-up)", l.HeapPct)
}

// errorsExplained passes when every error-level log line falls within an
// injected fault (from its start to grace after its end) and nothing
// panicked. A line outside every fault is a problem the soak did not cause.
func errorsExplained(lines []errorLine, windows []window, grace func(kind string) time.Duration, panics int) Verdict {
	v := Verdict{Name: "Every error line is an injected fault's",
		Threshold: "0 error-level log lines outside the injected faults (a bridge offline, a stream cut, throttling, a restart, each with a grace after it), and no panic"}
	byFault := map[string]int{}
	unexplained := map[string]int{}
	for _, l := range lines {
		kind := ""
		for _, w := range windows {
			if !l.At.Before(w.From.Add(-time.Second)) && !l.At.After(w.To.Add(grace(w.Kind))) {
				kind = w.Kind
				break
			}
		}
		if kind == "" {
			unexplained[l.Key]++
		} else {
			byFault[kind]++
		}
	}
	n := 0
	for _, c := range unexplained {
		n += c
	}
	v.Passed = n == 0 && panics == 0
	v.Value = fmt.Sprintf("%d of %d outside a fault", n, len(lines))
	v.Evidence = fmt.Sprintf("within a fault, by fault: %s; panics: %d", bench.FormatCounts(byFault), panics)
	if n > 0 {
		v.Evidence += "; outside: " + bench.FormatCounts(unexplained)
	}
	return v
}

// resentVerdict passes when no light command went to a model light that
// had settled Ready: nothing changed for it, so nothing was to be sent.
func resentVerdict(resent map[*modelLight]int) Verdict {
	v := Verdict{Name: "Nothing resent to settled bulbs", Threshold: "0 light commands, after they settled, to the HueLights of every bulb model (in and beyond their reach) the mischief leaves alone"}
	n, lights := 0, 0
	var who []string
	for m, c := range resent {
		if m.stalls {
			continue
		}
		lights++
		if c > 0 {
			n += c
			who = append(who, fmt.Sprintf("%s %d", m.light.Name, c))
		}
	}
	sort.Strings(who)
	v.Passed = n == 0
	v.Value = fmt.Sprintf("%d commands", n)
	v.Evidence = fmt.Sprintf("%d settled lights of %d models on the first v1 and the first v2 bridge", lights, len(modelsOf(resent)))
	if n > 0 {
		v.Evidence += "; sent to: " + strings.Join(who, ", ")
	}
	return v
}

func modelsOf(resent map[*modelLight]int) map[string]bool {
	out := map[string]bool{}
	for m := range resent {
		out[m.model] = true
	}
	return out
}

// stallVerdict passes when the bulbs that end Stalled were sent no more
// than the stall breaker allows after each restart (it lives in memory: a
// restart allows StallAfter more tries).
func stallVerdict(resent map[*modelLight]int, restarts, stallAfter int) Verdict {
	limit := restarts * stallAfter
	v := Verdict{Name: "Stalled bulbs sent only what a restart allows",
		Threshold: fmt.Sprintf("<= %d light commands per stalled light after it settled: %d per restart (the stall breaker's memory), %d restarts", limit, stallAfter, restarts)}
	worst := 0
	var who []string
	for m, c := range resent {
		if m.stalls {
			worst = max(worst, c)
			who = append(who, fmt.Sprintf("%s %d", m.light.Name, c))
		}
	}
	sort.Strings(who)
	v.Passed = worst <= limit
	v.Value = fmt.Sprintf("at most %d commands", worst)
	v.Evidence = "by light: " + strings.Join(who, ", ")
	if len(who) == 0 {
		v.Evidence = "no stalling light"
	}
	return v
}

func tempScenesVerdict(c check) Verdict {
	v := Verdict{Name: "No temporary scene left", Threshold: "0 temporary scenes on the bridges at the end of the settle",
		Passed: len(c.TempScenes) == 0, Value: fmt.Sprintf("%d scenes", len(c.TempScenes))}
	v.Evidence = "every bridge's scenes listed" + examples(c.TempScenes)
	return v
}

func readyVerdict(c check, settled bool, took time.Duration) Verdict {
	v := Verdict{Name: "Every object Ready", Threshold: "all Ready (for their current generation) at the end of the settle; the bulb asked for what it hides it cannot show, Stalled",
		Passed: len(c.NotReady) == 0, Value: fmt.Sprintf("%d of %d not Ready", len(c.NotReady), c.Objects)}
	v.Evidence = settleEvidence(settled, took) + examples(c.NotReady)
	return v
}

func lightsVerdict(c check, settled bool, took time.Duration) Verdict {
	v := Verdict{Name: "Bulbs match their HueLight", Threshold: "every bulb at the simulator shows its spec (on; brightness and colour when on)",
		Passed: len(c.LightMismatches) == 0 && c.Lights > 0, Value: fmt.Sprintf("%d of %d differ", len(c.LightMismatches), c.Lights)}
	v.Evidence = settleEvidence(settled, took) + examples(c.LightMismatches)
	return v
}

func tablesVerdict(c check, settled bool, took time.Duration) Verdict {
	v := Verdict{Name: "Tables match their DynamoDBTable", Threshold: "every table at DynamoDB Local has its spec's billing mode and capacities (table and index)",
		Passed: len(c.TableMismatches) == 0 && c.Tables > 0, Value: fmt.Sprintf("%d of %d differ", len(c.TableMismatches), c.Tables)}
	v.Evidence = settleEvidence(settled, took) + examples(c.TableMismatches)
	return v
}

func settleEvidence(settled bool, took time.Duration) string {
	if settled {
		return fmt.Sprintf("everything Ready and matching %s after the mischief ended", took.Round(time.Second))
	}
	return fmt.Sprintf("still not Ready and matching %s after the mischief ended", took.Round(time.Second))
}

func examples(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	n := min(len(xs), 5)
	s := "; e.g. " + strings.Join(xs[:n], "; ")
	if len(xs) > n {
		s += fmt.Sprintf(" (and %d more)", len(xs)-n)
	}
	return s
}

func samplerVerdict(failures int, lastErr string, samples int) Verdict {
	v := Verdict{Name: "Manager answered every sample", Threshold: "no failed reading of its metrics or /proc, and the process never exited",
		Passed: failures == 0 && samples > 0, Value: fmt.Sprintf("%d failed of %d", failures, failures+samples)}
	if failures > 0 {
		v.Evidence = "last failure: " + lastErr
	} else {
		v.Evidence = fmt.Sprintf("%d samples", samples)
	}
	return v
}

// stallAfter is the stall breaker's count: how many times a write with no
// visible effect is sent per generation, and again after each restart.
const stallAfter = providers.DefaultStallAfter

// faultGrace is how long after a fault ends an error line may still be its:
// the polls that find the bridge back, the DynamoDB polls that find the
// throttling gone, a restarted manager's start.
func (o Options) faultGrace(kind string) time.Duration {
	switch kind {
	case faultThrottle:
		return o.DDBPoll + 15*time.Second
	case faultRestartTerm, faultRestartKill:
		return 30 * time.Second
	default:
		return 2*o.HuePoll + 10*time.Second
	}
}

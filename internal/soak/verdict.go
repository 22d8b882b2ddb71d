package soak

import (
	"fmt"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/bench"
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

// flatHeap passes when the live heap grew by at most limits.HeapPct percent.
func flatHeap(xs []float64, l Limits) (Verdict, Growth) {
	v := Verdict{Name: "Heap flat", Threshold: fmt.Sprintf("growth <= +%.0f%% from the first third to the last (medians of go_memstats_heap_alloc_bytes, after warm-up)", l.HeapPct)}
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

// noErrorStorm passes when no minute held more than limits.ErrorsPerMinute
// error-level log lines.
func noErrorStorm(perMinute []int, total, settleErrors int, top []MessageCount, panics int, l Limits) Verdict {
	peak, peakAt := 0, 0
	for i, n := range perMinute {
		if n > peak {
			peak, peakAt = n, i
		}
	}
	v := Verdict{Name: "No error storm", Threshold: fmt.Sprintf("<= %d error-level log lines in any minute, and no panic", l.ErrorsPerMinute)}
	v.Passed = peak <= l.ErrorsPerMinute && panics == 0
	v.Value = fmt.Sprintf("peak %d/min", peak)
	var msgs []string
	for _, m := range top {
		msgs = append(msgs, fmt.Sprintf("%d× %q", m.Count, m.Message))
	}
	most := "none"
	if len(msgs) > 0 {
		most = strings.Join(msgs, "; ")
	}
	v.Evidence = fmt.Sprintf("%d error lines in all (%d during the settle), peak in minute %d of the mischief; panics: %d; most frequent: %s",
		total, settleErrors, peakAt+1, panics, most)
	return v
}

func readyVerdict(c check, settled bool, took time.Duration) Verdict {
	v := Verdict{Name: "Every object Ready", Threshold: "all Ready (for their current generation) at the end of the settle",
		Passed: len(c.NotReady) == 0, Value: fmt.Sprintf("%d of %d not Ready", len(c.NotReady), c.Lights+c.Tables)}
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

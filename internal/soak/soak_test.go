package soak

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// TestShortSoak runs the whole soak at toy scale (a couple of minutes of
// every kind of mischief, the manager restarted twice) and checks that both
// report files are written with every verdict computed, and that the
// verdicts a short run can judge (everything Ready and matching, nothing
// resent to settled bulbs, no temporary scene left, every error line an
// injected fault's, the manager answering) pass. The flatness verdicts
// need a long run to mean anything: here they must be computed, not
// necessarily passed.
func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server, DynamoDB Local and the operator for about four minutes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var progress strings.Builder
	o := ShortOptions()
	o.WorkDir = t.TempDir()
	o.Progress = &progress
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	rep.Command = "go test ./internal/soak -run TestShortSoak"
	dir := t.TempDir()
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	want := []string{"Every object Ready", "Bulbs match their HueLight", "Tables match their DynamoDBTable",
		"Nothing resent to settled bulbs", "Stalled bulbs sent only what a restart allows", "No temporary scene left",
		"Goroutines flat", "Heap flat", "Every error line is an injected fault's", "Manager answered every sample"}
	if len(back.Verdicts) != len(want) {
		t.Fatalf("%d verdicts in report.json, want %d", len(back.Verdicts), len(want))
	}
	judged := map[string]bool{"Goroutines flat": false, "Heap flat": false}
	for i, v := range back.Verdicts {
		if v.Name != want[i] {
			t.Errorf("verdict %d is %q, want %q", i, v.Name, want[i])
		}
		if v.Value == "" || v.Evidence == "" {
			t.Errorf("verdict %q not computed: value %q, evidence %q", v.Name, v.Value, v.Evidence)
		}
		if _, flatness := judged[v.Name]; !flatness && !v.Passed {
			t.Errorf("verdict %q failed: %s (%s)", v.Name, v.Value, v.Evidence)
		}
		if !strings.Contains(string(md), "| "+v.Name+" |") {
			t.Errorf("report.md lacks the verdict %q", v.Name)
		}
	}
	for _, kind := range []string{faultFlap, faultStreamCut, faultThrottle, faultRestartTerm, faultRestartKill, faultBurst, faultGroupEdit} {
		if back.Injected[kind] == 0 {
			t.Errorf("no %q in the mischief: %v", kind, back.Injected)
		}
	}
	if back.Objects.Models == 0 || back.Objects.Groups == 0 || back.Objects.AccountTables == 0 || back.Objects.V2Bridges == 0 {
		t.Errorf("the soak's world lacks a kind: %+v", back.Objects)
	}
	t.Logf("report:\n%s", md)
}

func TestGrowthVerdicts(t *testing.T) {
	flat := []float64{100, 102, 98, 101, 99, 100, 103, 97, 100}
	l := DefaultLimits()
	if v, _ := flatGoroutines(flat, l); !v.Passed {
		t.Errorf("flat goroutines failed: %+v", v)
	}
	// +25 goroutines on 100: more than both 10% and 20.
	leak := []float64{100, 100, 100, 110, 115, 118, 125, 125, 126}
	if v, _ := flatGoroutines(leak, l); v.Passed {
		t.Errorf("a goroutine leak passed: %+v", v)
	}
	// +15 on 100 is more than 10% but within 20 absolute.
	small := []float64{100, 100, 100, 108, 108, 108, 115, 115, 115}
	if v, _ := flatGoroutines(small, l); !v.Passed {
		t.Errorf("+15 goroutines failed: %+v", v)
	}
	heap := []float64{10e6, 12e6, 11e6, 12e6, 13e6, 14e6, 14e6, 15e6, 16e6}
	if v, g := flatHeap(heap, l); v.Passed || g.Pct < 25 {
		t.Errorf("heap +36%% passed: %+v %+v", v, g)
	}
	if v, _ := flatHeap([]float64{1, 2}, l); v.Passed || v.Value != "not measured" {
		t.Errorf("two samples judged: %+v", v)
	}
}

// An error line is an injected fault's when it falls within the fault or
// the grace after it; others count, and so does a panic.
func TestErrorsExplained(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	windows := []window{{Kind: faultFlap, From: at(10), To: at(35)}, {Kind: faultRestartKill, From: at(100), To: at(104)}}
	grace := func(string) time.Duration { return 10 * time.Second }
	lines := []errorLine{
		{At: at(20), Key: "huelight: bridge offline"},
		{At: at(44), Key: "huelight: bridge offline"}, // in the grace
		{At: at(101), Key: "manager: lost the lease"}, // during the restart
	}
	if v := errorsExplained(lines, windows, grace, 0); !v.Passed {
		t.Errorf("lines within faults failed: %+v", v)
	}
	outside := append(lines, errorLine{At: at(60), Key: "dynamodbtable: Reconciler error: boom"})
	v := errorsExplained(outside, windows, grace, 0)
	if v.Passed || !strings.Contains(v.Evidence, "outside: dynamodbtable: Reconciler error: boom 1") {
		t.Errorf("a line outside every fault passed: %+v", v)
	}
	if v := errorsExplained(nil, windows, grace, 1); v.Passed {
		t.Errorf("a panic passed: %+v", v)
	}
}

// Flatness is judged within each manager process, after its own warm-up: a
// restart's fresh heap is no growth, a leak within one process is.
func TestFlatnessPerProcess(t *testing.T) {
	l := DefaultLimits()
	var series []Sample
	add := func(process int, heaps ...float64) {
		for i, h := range heaps {
			series = append(series, Sample{Phase: phaseMischief, Process: process, Since: float64(60 + 20*i), HeapGoal: h})
		}
	}
	add(1, 20e6, 20e6, 21e6, 20e6, 20e6, 21e6, 20e6, 21e6, 20e6)
	add(2, 8e6, 8e6, 8e6, 9e6, 8e6, 8e6, 8e6, 9e6, 8e6) // a restart: lower, then flat
	judge := func(xs []float64) (Verdict, Growth) { return flatHeap(xs, l) }
	if v, _ := flatPerProcess("Heap flat", "growth", processSeries(series, 30*time.Second, func(x Sample) float64 { return x.HeapGoal }), judge); !v.Passed {
		t.Errorf("two flat processes failed: %+v", v)
	}
	add(3, 8e6, 8e6, 8e6, 12e6, 12e6, 12e6, 16e6, 16e6, 16e6)
	if v, _ := flatPerProcess("Heap flat", "growth", processSeries(series, 30*time.Second, func(x Sample) float64 { return x.HeapGoal }), judge); v.Passed {
		t.Errorf("a leak in process 3 passed: %+v", v)
	}
}

func TestLogWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "manager.log")
	lines := `{"level":"info","ts":1700000000.5,"msg":"Starting"}
{"level":"error","ts":1700000001.25,"msg":"Reconciler error","controller":"huelight","error":"bridge offline"}
not json: panic: runtime error
{"level":"error","ts":"2023-11-14T22:14:30Z","msg":"Reconciler error","controller":"huelight","error":"bridge offline"}
{"level":"error","ts":17000`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	lw := newLogWatch(path)
	if err := lw.read(time.Now()); err != nil {
		t.Fatal(err)
	}
	if lines, panics := lw.lines(); len(lines) != 2 || panics != 1 {
		t.Fatalf("errors %d, panics %d; want 2 and 1", len(lines), panics)
	}
	start := time.Unix(1700000000, 0)
	if got := lw.perMinute(start, start.Add(90*time.Second)); len(got) != 2 || got[0] != 1 || got[1] != 1 {
		t.Errorf("per minute %v, want [1 1]", got)
	}
	// The unfinished line is read once it is complete.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`00100,"msg":"x"}` + "\n")
	f.Close()
	if err := lw.read(time.Now()); err != nil {
		t.Fatal(err)
	}
	if lw.count() != 3 {
		t.Errorf("errors %d after the line was finished, want 3", lw.count())
	}
	if top := lw.top(1); len(top) != 1 || top[0].Count != 2 || !strings.Contains(top[0].Message, "huelight: Reconciler error: bridge offline") {
		t.Errorf("top %v", top)
	}
}

// A settled bulb is sent nothing; a stalled one at most what each restart
// allows the stall breaker (it lives in memory).
func TestResentVerdicts(t *testing.T) {
	light := func(name string, stalls bool) *modelLight {
		return &modelLight{light: &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Name: name}}, model: "LCT015", stalls: stalls}
	}
	quiet, busy, stalled := light("quiet", false), light("busy", false), light("stalled", true)
	if v := resentVerdict(map[*modelLight]int{quiet: 0, stalled: 9}); !v.Passed || !strings.Contains(v.Evidence, "1 settled lights") {
		t.Errorf("nothing resent failed: %+v", v)
	}
	if v := resentVerdict(map[*modelLight]int{quiet: 0, busy: 2}); v.Passed || !strings.Contains(v.Evidence, "busy 2") {
		t.Errorf("two commands to a settled bulb passed: %+v", v)
	}
	if v := stallVerdict(map[*modelLight]int{stalled: 6}, 2, stallAfter); !v.Passed {
		t.Errorf("3 tries per restart failed: %+v", v)
	}
	if v := stallVerdict(map[*modelLight]int{stalled: 7}, 2, stallAfter); v.Passed {
		t.Errorf("7 tries after 2 restarts passed: %+v", v)
	}
}

// A restarted manager counts its reconciles from 0: the rate adds up what
// each process did.
func TestReconcilesAcrossARestart(t *testing.T) {
	samples := []Sample{{Process: 1, Reconciles: 100}, {Process: 1, Reconciles: 160}, {Process: 2, Reconciles: 30}, {Process: 2, Reconciles: 50}}
	if got := reconcilesIn(samples); got != 60+30+20 {
		t.Errorf("reconciles = %v, want 110", got)
	}
}

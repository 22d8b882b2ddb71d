package soak

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShortSoak runs the whole soak at toy scale (20 lights, 20 tables, a
// flap every 20 s, 75 s of mischief) and checks that both report files are
// written with every verdict computed, and that the verdicts a short run
// can judge (everything Ready and matching, no error storm, the manager
// answering) pass. The flatness verdicts need a long run to mean anything:
// here they must be measured, not necessarily passed.
func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server, DynamoDB Local and the operator for about two minutes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
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
		"Goroutines flat", "Heap flat", "No error storm", "Manager answered every sample"}
	if len(back.Verdicts) != len(want) {
		t.Fatalf("%d verdicts in report.json, want %d", len(back.Verdicts), len(want))
	}
	mustPass := map[string]bool{want[0]: true, want[1]: true, want[2]: true, want[5]: true, want[6]: true}
	for i, v := range back.Verdicts {
		if v.Name != want[i] {
			t.Errorf("verdict %d is %q, want %q", i, v.Name, want[i])
		}
		if v.Value == "" || v.Value == "not measured" || v.Evidence == "" {
			t.Errorf("verdict %q not computed: value %q, evidence %q", v.Name, v.Value, v.Evidence)
		}
		if mustPass[v.Name] && !v.Passed {
			t.Errorf("verdict %q failed: %s (%s)", v.Name, v.Value, v.Evidence)
		}
		if !strings.Contains(string(md), "| "+v.Name+" |") {
			t.Errorf("report.md lacks the verdict %q", v.Name)
		}
	}
	if back.InjectedTotal == 0 || back.Injected[faultFlap] < 2 {
		t.Errorf("too little mischief: %v", back.Injected)
	}
	if len(back.Series) < 3*3*minThird/3 {
		t.Errorf("%d samples", len(back.Series))
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

func TestErrorStorm(t *testing.T) {
	l := DefaultLimits()
	if v := noErrorStorm([]int{3, 0, 60, 1}, 64, 0, nil, 0, l); !v.Passed {
		t.Errorf("60 lines in a minute is the limit, not a storm: %+v", v)
	}
	if v := noErrorStorm([]int{3, 0, 61, 1}, 65, 0, nil, 0, l); v.Passed {
		t.Errorf("61 lines in a minute passed: %+v", v)
	}
	if v := noErrorStorm([]int{0}, 0, 0, nil, 1, l); v.Passed {
		t.Errorf("a panic passed: %+v", v)
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
	if len(lw.errors) != 2 || lw.panics != 1 {
		t.Fatalf("errors %d, panics %d; want 2 and 1", len(lw.errors), lw.panics)
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
	if len(lw.errors) != 3 {
		t.Errorf("errors %d after the line was finished, want 3", len(lw.errors))
	}
	if top := lw.top(1); len(top) != 1 || top[0].Count != 2 || !strings.Contains(top[0].Message, "huelight: Reconciler error: bridge offline") {
		t.Errorf("top %v", top)
	}
}

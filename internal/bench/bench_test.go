package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuickRunWritesTheReport runs the whole harness at toy scale and checks
// that both report files hold every default figure. It starts a world per
// figure (about four minutes of a two-core machine), so it is a long run:
// `make bench` runs it first (make bench-smoke), `make test` does not.
// benchSmokeEnv turns TestQuickRunWritesTheReport on.
const benchSmokeEnv = "TETHER_BENCH_SMOKE"

func TestQuickRunWritesTheReport(t *testing.T) {
	if os.Getenv(benchSmokeEnv) == "" {
		t.Skip("a long run: make bench-smoke (" + benchSmokeEnv + "=1) runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	var progress strings.Builder
	rep, err := Run(ctx, Options{Runs: 1, Scale: QuickScale(), Quick: true, WorkDir: t.TempDir(), Progress: &progress})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	dir := t.TempDir()
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Fatal(err)
	}
	for _, id := range DefaultFigures {
		heading := fmt.Sprintf("## %d. %s", id, figureTitles[id])
		if !strings.Contains(string(md), heading) {
			t.Errorf("report.md lacks %q", heading)
		}
	}
	if len(rep.Figures) != len(DefaultFigures) {
		t.Fatalf("%d figures, want %d", len(rep.Figures), len(DefaultFigures))
	}
	for _, f := range rep.Figures {
		if len(f.Failures) > 0 {
			t.Errorf("figure %d failed: %v", f.ID, f.Failures)
		}
		if len(f.Measures) == 0 {
			t.Errorf("figure %d has no measures", f.ID)
		}
	}
	t.Logf("report:\n%s", md)
}

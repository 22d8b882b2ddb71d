package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Run measures every figure opts.Runs times and returns the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Runs <= 0 {
		opts.Runs = 1
	}
	keep := true
	if opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "tether-bench-")
		if err != nil {
			return nil, err
		}
		keep = false
		// Kept when something failed: the operator's logs are in it.
		defer func() {
			if keep {
				opts.logf("kept the operator's logs in %s", dir)
			} else {
				os.RemoveAll(dir)
			}
		}()
		opts.WorkDir = dir
	}
	// The harness's own client-go and controller-runtime logs are noise.
	ctrllog.SetLogger(logr.Discard())
	began := time.Now()
	opts.logf("building the manager")
	bin, err := BuildManager(opts.WorkDir)
	if err != nil {
		return nil, err
	}
	var (
		runs   [][]figureResult
		failed []string
	)
	for i := range opts.Runs {
		opts.logf("run %d of %d", i+1, opts.Runs)
		dir := filepath.Join(opts.WorkDir, fmt.Sprintf("run-%d", i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		figs, err := runOnce(ctx, opts, bin, dir)
		for _, f := range figs {
			keep = keep || f.Failure != ""
		}
		if err != nil {
			keep = true
			// A later run's failure still leaves the earlier runs' report,
			// which says how many runs it stands on and why.
			if len(runs) == 0 || ctx.Err() != nil {
				return nil, fmt.Errorf("run %d: %w", i+1, err)
			}
			opts.logf("run %d failed, reporting the %d run(s) before it: %v", i+1, len(runs), err)
			failed = append(failed, fmt.Sprintf("Run %d of %d failed and is not in the medians: %s", i+1, opts.Runs, firstLine(err.Error())))
			break
		}
		runs = append(runs, figs)
		if opts.AfterRun != nil && i+1 < opts.Runs {
			rep := aggregate(runs, opts)
			rep.Duration = time.Since(began).Round(time.Second).String()
			opts.AfterRun(rep)
		}
	}
	rep := aggregate(runs, opts)
	rep.Missed = append(rep.Missed, failed...)
	rep.Duration = time.Since(began).Round(time.Second).String()
	return rep, nil
}

// runOnce measures the figures asked for, each group in a fresh world of
// its own.
func runOnce(ctx context.Context, opts Options, bin, dir string) ([]figureResult, error) {
	var out []figureResult
	if opts.wants(1) {
		figs, err := runMain(ctx, opts, bin, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, figs...)
	}
	for _, id := range aloneFigureIDs() {
		if !opts.wants(id) {
			continue
		}
		fig, err := runAlone(ctx, opts, id, filepath.Join(dir, fmt.Sprintf("fig%d", id)), func(ctx context.Context, r *run) error {
			return aloneFigures[id](r, ctx, bin)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, fig)
	}
	return out, nil
}

// runAlone measures one figure that builds its own world.
func runAlone(ctx context.Context, opts Options, id int, dir string, measure func(context.Context, *run) error) (figureResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return figureResult{}, err
	}
	r := &run{env: &env{opts: opts, runDir: dir}, sc: opts.Scale, logf: opts.logf}
	defer r.stop()
	opts.logf("figure %d: %s", id, figureTitles[id])
	if err := measure(ctx, r); err != nil {
		if ctx.Err() != nil {
			return figureResult{}, err
		}
		opts.logf("figure %d failed: %v", id, err)
		if r.op != nil {
			opts.logf("operator log (%s), last lines:\n%s", r.op.LogPath, Tail(r.op.LogPath, 20))
		}
		r.fig(id).Failure = firstLine(err.Error())
	}
	return *r.fig(id), nil
}

// mainOrder is the order runMain measures figures 1 to 6 in. It builds the
// world up: the scale figure creates the tables (and, meanwhile, the second
// bridge's lights) that the watch-cost figure then watches.
var mainOrder = []int{1, 4, 2, 3, 5, 6}

// runMain measures figures 1 to 6 in one fresh world, in mainOrder.
func runMain(ctx context.Context, opts Options, bin, dir string) ([]figureResult, error) {
	e, err := startEnv(ctx, opts, bin, dir)
	if err != nil {
		return nil, err
	}
	defer e.stop()
	r := &run{env: e, sc: opts.Scale, logf: opts.logf}
	for _, fig := range mainOrder {
		opts.logf("figure %d: %s", fig, figureTitles[fig])
		if err := mainFigures[fig](r, ctx); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// A failed figure is reported as such; the next ones still
			// run (they may fail too when they build on it).
			opts.logf("figure %d failed: %v\noperator log (%s), last lines:\n%s", fig, err, e.op.LogPath, Tail(e.op.LogPath, 20))
			r.fig(fig).Failure = firstLine(err.Error())
		}
	}
	if u, err := e.op.Usage(); err == nil {
		r.fig(4).add("peak_rss_end", "operator peak RSS at the end of the run (after figures 5 and 6)", "MB", float64(u.PeakRSS)/1e6, nil)
		r.fig(4).add("cpu_total", "operator CPU for the whole run", "s", u.CPUTotal.Seconds(), nil)
	}
	return r.figures(), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

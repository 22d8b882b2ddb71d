// Package soak runs Tether for a long time under steady mischief (issue 7):
// hundreds of HueLights and DynamoDBTables managed by the manager binary in
// its own process, while bulbs are changed from "the Hue app", tables are
// changed straight at DynamoDB Local, specs are edited, and a bridge drops
// off the network every few minutes. It samples the manager's goroutines and
// memory throughout and, after a quiet settle period, checks that every
// object is Ready and matches its spec, that goroutines and memory stayed
// flat, and that the log held no error storm.
//
// It reuses the benchmark's machinery (internal/bench): the API server and
// DynamoDB Local behind the counting proxy, and the operator process.
package soak

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/tether-dev/tether/internal/bench"
)

// Options size and pace a soak.
type Options struct {
	// Duration is the mischief phase; setup and settle come on top.
	Duration time.Duration
	Lights   int
	Tables   int
	// Bridges holds the lights, split evenly; the last one flaps.
	Bridges int
	// FlapEvery and FlapFor: the flapping bridge goes offline FlapFor long
	// at the start of every FlapEvery.
	FlapEvery time.Duration
	FlapFor   time.Duration
	// ChangeEvery is the mean pause between out-of-band changes (bulbs and
	// tables); SpecEditEvery the mean pause between spec edits.
	ChangeEvery   time.Duration
	SpecEditEvery time.Duration
	// SampleEvery is how often the manager is sampled.
	SampleEvery time.Duration
	// WarmUp is left out of the flatness comparison.
	WarmUp time.Duration
	// SettleTimeout bounds the wait, after the mischief, for every object
	// to be Ready and to match.
	SettleTimeout time.Duration
	// HuePoll and DDBPoll are the manager's poll intervals (its flags).
	HuePoll time.Duration
	DDBPoll time.Duration
	// Limits are the verdicts' thresholds.
	Limits Limits
	Seed   uint64
	// WorkDir keeps the manager binary, kubeconfig and the manager's log
	// (a temporary folder, kept when a verdict fails, when empty).
	WorkDir  string
	Progress io.Writer
}

// Limits are the thresholds the verdicts apply.
type Limits struct {
	// Goroutines may grow by GoroutinePct percent or GoroutineAbs, whichever
	// is larger, from the first third to the last third.
	GoroutinePct float64 `json:"goroutineGrowthPct"`
	GoroutineAbs float64 `json:"goroutineGrowthAbs"`
	// HeapPct is the allowed growth of the median live heap.
	HeapPct float64 `json:"heapGrowthPct"`
	// ErrorsPerMinute is the most error-level log lines any one minute may
	// hold before it counts as an error storm.
	ErrorsPerMinute int `json:"errorLinesPerMinute"`
}

// DefaultLimits are issue 7's thresholds.
func DefaultLimits() Limits {
	return Limits{GoroutinePct: 10, GoroutineAbs: 20, HeapPct: 25, ErrorsPerMinute: 60}
}

// FullOptions is issue 7's soak: 30 minutes, 300 lights on two bridges (one
// flapping 25 s every 2 minutes) and 300 tables.
func FullOptions() Options {
	return Options{
		Duration:      30 * time.Minute,
		Lights:        300,
		Tables:        300,
		Bridges:       2,
		FlapEvery:     2 * time.Minute,
		FlapFor:       25 * time.Second,
		ChangeEvery:   2 * time.Second,
		SpecEditEvery: 20 * time.Second,
		SampleEvery:   20 * time.Second,
		WarmUp:        3 * time.Minute,
		SettleTimeout: 4 * time.Minute,
		HuePoll:       5 * time.Second,
		DDBPoll:       45 * time.Second,
		Limits:        DefaultLimits(),
		Seed:          1,
	}
}

// ShortOptions is the smoke run the tests use: a minute at toy scale with
// a flap every 20 s. Its flatness verdicts are computed but mean little.
func ShortOptions() Options {
	o := FullOptions()
	o.Duration = 75 * time.Second
	o.Lights, o.Tables = 20, 20
	o.FlapEvery, o.FlapFor = 20*time.Second, 8*time.Second
	o.ChangeEvery, o.SpecEditEvery = 500*time.Millisecond, 5*time.Second
	o.SampleEvery = 3 * time.Second
	o.WarmUp = 10 * time.Second
	o.SettleTimeout = 90 * time.Second
	o.HuePoll, o.DDBPoll = 2*time.Second, 10*time.Second
	return o
}

func (o Options) logf(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

// managerFlags are the manager's flags for this soak.
func (o Options) managerFlags() []string {
	return []string{
		"--hue-poll-interval=" + o.HuePoll.String(),
		"--dynamodbtable-poll-interval=" + o.DDBPoll.String(),
	}
}

// Run soaks Tether and returns the report; a failed verdict is in the
// report (Passed false), an error means the soak could not be run.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Bridges < 1 {
		opts.Bridges = 1
	}
	keep := opts.WorkDir != ""
	if opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "tether-soak-")
		if err != nil {
			return nil, err
		}
		opts.WorkDir = dir
		defer func() {
			if keep {
				opts.logf("kept the manager's log and kubeconfig in %s", dir)
			} else {
				os.RemoveAll(dir)
			}
		}()
	}
	ctrllog.SetLogger(logr.Discard())
	began := time.Now()
	opts.logf("building the manager")
	built := commit()
	bin, err := bench.BuildManager(opts.WorkDir)
	if err != nil {
		return nil, err
	}
	opts.logf("starting the API server and DynamoDB Local")
	w, err := bench.StartWorld(ctx, opts.WorkDir)
	if err != nil {
		keep = true
		return nil, err
	}
	defer w.Stop()
	s := &soak{opts: opts, w: w, commit: built}
	if err := s.setUp(ctx, bin); err != nil {
		keep = true
		return nil, err
	}
	rep, err := s.run(ctx)
	if err != nil {
		keep = true
		return nil, fmt.Errorf("%w\nmanager log (%s), last lines:\n%s", err, s.op.LogPath, bench.Tail(s.op.LogPath, 20))
	}
	rep.Took = time.Since(began).Round(time.Second).String()
	if !rep.Passed {
		keep = true
		rep.LogKept = filepath.Join(opts.WorkDir, "manager.log")
	}
	return rep, nil
}

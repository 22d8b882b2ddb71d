// Package soak runs Tether for a long time under steady mischief (issues 7
// and 28): HueLights on v1 and CLIP v2 bridges (bulbs of every model among
// them, with specs beyond their reach), HueGroups showing HueScenes, the
// operator's own DynamoDBTables and an AWSAccount's (an assumed role) with
// replicas, autoscaling and the newer features, all managed by the manager
// binary in its own process, while bulbs are changed from "the Hue app",
// tables straight at DynamoDB Local, specs through the API server (bursts of
// distinct states, which go as temporary scenes), bridges drop off the
// network, a v2 bridge's event stream is cut, DynamoDB throttles and the
// manager is restarted. It samples the manager's goroutines and memory
// throughout and, after a quiet settle period, checks that every object is
// Ready and matches its spec, that goroutines and memory stayed flat, that
// every error line came from an injected fault, that nothing was sent to
// bulbs that had settled and that no temporary scene was left.
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
	// Lights are split over all the bridges; Tables are the operator's own
	// identity's.
	Lights int
	Tables int
	// Bridges v1 bridges and V2Bridges CLIP v2 bridges (HTTPS, event
	// stream) hold the lights. With two or more of a kind the last one
	// flaps; the first v2 bridge is reached through a TCP proxy that cuts
	// its connections, event stream included, every StreamCutEvery.
	Bridges   int
	V2Bridges int
	// ModelLights bulbs of every model with a spec it can show, and as many
	// with one beyond it, sit on the first bridge of each kind, out of the
	// mischief's reach: once settled nothing may be sent to them.
	ModelLights int
	// Groups HueGroups (zones of bulbs of their own) per first bridge of
	// each kind, each with a HueScene; every GroupEditEvery one is switched
	// between its scene and a brightness.
	Groups         int
	GroupEditEvery time.Duration
	// AccountTables tables are an AWSAccount's (a role the STS model
	// issues credentials for), reached through the model of the APIs
	// DynamoDB Local lacks (internal/ddbgap): copies of the samples' tables
	// with replicas, autoscaling and the newer features.
	AccountTables int
	// FlapEvery and FlapFor: the flapping bridges go offline FlapFor long
	// at the start of every FlapEvery.
	FlapEvery time.Duration
	FlapFor   time.Duration
	// ChangeEvery is the mean pause between out-of-band changes (bulbs and
	// tables); SpecEditEvery the mean pause between spec edits.
	ChangeEvery   time.Duration
	SpecEditEvery time.Duration
	// Every BurstEvery (on average) BurstLights HueLights of one bridge are
	// given states of their own at once: a temporary scene's work.
	BurstEvery  time.Duration
	BurstLights int
	// StreamCutEvery is how often the first v2 bridge's connections are cut.
	StreamCutEvery time.Duration
	// Every ThrottleEvery both DynamoDB endpoints answer half the calls with
	// ThrottlingException for ThrottleFor.
	ThrottleEvery time.Duration
	ThrottleFor   time.Duration
	// Every RestartEvery the manager is stopped, with SIGTERM and SIGKILL in
	// turn, and started again.
	RestartEvery time.Duration
	// SampleEvery is how often the manager is sampled.
	SampleEvery time.Duration
	// WarmUp, after the mischief starts and after each restart, is left out
	// of the flatness comparison.
	WarmUp time.Duration
	// SettleTimeout bounds the wait, after the mischief, for every object
	// to be Ready and to match.
	SettleTimeout time.Duration
	// HuePoll and DDBPoll are the manager's poll intervals (its flags);
	// SecondaryRead its --dynamodb-secondary-read-interval.
	HuePoll       time.Duration
	DDBPoll       time.Duration
	SecondaryRead time.Duration
	// Limits are the verdicts' thresholds.
	Limits Limits
	Seed   uint64
	// WorkDir keeps the manager binary, kubeconfig and the manager's logs
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
}

// DefaultLimits are issue 7's thresholds.
func DefaultLimits() Limits {
	return Limits{GoroutinePct: 10, GoroutineAbs: 20, HeapPct: 25}
}

// FullOptions is the 30-minute soak: 300 lights on two v1 and two CLIP v2
// bridges (one of each flapping 25 s every 2 minutes), 300 tables of the
// operator's own and 30 of an AWSAccount's, the manager restarted every 8
// minutes.
func FullOptions() Options {
	return Options{
		Duration:       30 * time.Minute,
		Lights:         300,
		Tables:         300,
		Bridges:        2,
		V2Bridges:      2,
		ModelLights:    1,
		Groups:         3,
		GroupEditEvery: 45 * time.Second,
		AccountTables:  30,
		FlapEvery:      2 * time.Minute,
		FlapFor:        25 * time.Second,
		ChangeEvery:    2 * time.Second,
		SpecEditEvery:  20 * time.Second,
		BurstEvery:     time.Minute,
		BurstLights:    15,
		StreamCutEvery: 3 * time.Minute,
		ThrottleEvery:  5 * time.Minute,
		ThrottleFor:    45 * time.Second,
		RestartEvery:   8 * time.Minute,
		SampleEvery:    20 * time.Second,
		WarmUp:         3 * time.Minute,
		SettleTimeout:  5 * time.Minute,
		HuePoll:        5 * time.Second,
		DDBPoll:        45 * time.Second,
		SecondaryRead:  2 * time.Minute,
		Limits:         DefaultLimits(),
		Seed:           1,
	}
}

// ShortOptions is the smoke run the tests use: a couple of minutes at toy
// scale with every kind of mischief at least once. Its flatness verdicts
// are computed but mean little.
func ShortOptions() Options {
	o := FullOptions()
	o.Duration = 75 * time.Second
	o.Lights, o.Tables, o.AccountTables = 24, 12, 3
	o.Bridges, o.V2Bridges = 2, 1
	o.Groups = 1
	o.FlapEvery, o.FlapFor = 30*time.Second, 8*time.Second
	o.ChangeEvery, o.SpecEditEvery = 500*time.Millisecond, 5*time.Second
	o.BurstEvery, o.BurstLights = 15*time.Second, 5
	o.GroupEditEvery = 10 * time.Second
	o.StreamCutEvery = 25 * time.Second
	o.ThrottleEvery, o.ThrottleFor = 40*time.Second, 10*time.Second
	o.RestartEvery = 30 * time.Second
	o.SampleEvery = 3 * time.Second
	o.WarmUp = 10 * time.Second
	o.SettleTimeout = 2 * time.Minute
	o.HuePoll, o.DDBPoll, o.SecondaryRead = 2*time.Second, 10*time.Second, 20*time.Second
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
		"--dynamodb-secondary-read-interval=" + o.SecondaryRead.String(),
	}
}

// Run soaks Tether and returns the report; a failed verdict is in the
// report (Passed false), an error means the soak could not be run.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Bridges+opts.V2Bridges < 1 {
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
		log := s.operator().LogPath
		return nil, fmt.Errorf("%w\nmanager log (%s), last lines:\n%s", err, log, bench.Tail(log, 20))
	}
	rep.Took = time.Since(began).Round(time.Second).String()
	if !rep.Passed {
		keep = true
		rep.LogKept = filepath.Dir(s.operator().LogPath)
	}
	return rep, nil
}

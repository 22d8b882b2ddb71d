// Command bench measures Tether against issue 6's goals and writes
// bench/report.md and bench/report.json. `make bench` runs it; -quick is a
// seconds-long smoke run at toy scale.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/bench"
)

func main() {
	var (
		runs     int
		quick    bool
		out      string
		outage   time.Duration
		throttle time.Duration
		ddbPoll  time.Duration
		size     float64
		figures  string
		pprof    string
	)
	flag.IntVar(&runs, "runs", 3, "Runs per figure; each figure reports the median.")
	flag.BoolVar(&quick, "quick", false, "A seconds-long smoke run at toy scale (the numbers mean nothing).")
	flag.StringVar(&out, "out", "bench", "Folder for report.md and report.json.")
	flag.DurationVar(&outage, "outage", 0, "Override the bridge outage of figure 6 (default 5m; 5s with -quick).")
	flag.DurationVar(&throttle, "throttle", 0, "Override the throttling window of figure 6 (default 2m; 5s with -quick).")
	flag.DurationVar(&ddbPoll, "dynamodbtable-poll-interval", 0, "Override the operator's DynamoDBTable poll interval (default 45s; 2s with -quick).")
	flag.Float64Var(&size, "size", 1, "Multiply the object counts (not the durations) by this factor, e.g. 0.2 for a first look.")
	flag.StringVar(&figures, "figures", "", "Comma-separated figures to measure (default: the default set; 1-6 always run together), e.g. -figures=7.")
	flag.StringVar(&pprof, "operator-pprof", "", "Serve the Go profiles of the manager of figures 1-6 at this address (e.g. 127.0.0.1:6061; the manager's --pprof-bind-address), "+
		"to see where figure 4's memory goes; the manager inherits the environment, so GODEBUG=memprofilerate=4096 samples its heap finely. Off by default: no figure pays for it.")
	flag.Parse()
	figs, err := parseFigures(figures)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}

	scale := bench.FullScale()
	if quick {
		scale = bench.QuickScale()
	}
	if size > 0 && size != 1 {
		scale = scale.Resize(size)
	}
	if outage > 0 {
		scale.Outage = outage
	}
	if throttle > 0 {
		scale.Throttle = throttle
	}
	if ddbPoll > 0 {
		scale.DDBPoll = ddbPoll
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	command := strings.Join(os.Args[1:], " ")
	write := func(rep *bench.Report) error {
		rep.Command = command
		return rep.WriteFiles(out)
	}
	rep, err := bench.Run(ctx, bench.Options{Runs: runs, Scale: scale, Quick: quick, Progress: os.Stderr, Figures: figs, OperatorPprof: pprof,
		// Each completed run rewrites the report, so stopping a long
		// benchmark early still leaves the runs it finished.
		AfterRun: func(rep *bench.Report) {
			if err := write(rep); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
			}
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := write(rep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s/report.md and %s/report.json (%d goal(s) missed)\n", out, out, len(rep.Missed))
}

func parseFigures(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || !bench.KnownFigure(n) {
			return nil, fmt.Errorf("-figures: %q is not a figure number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

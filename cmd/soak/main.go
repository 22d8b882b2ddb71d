// Command soak runs Tether for a long time under steady mischief (issues 7
// and 28) and writes soak/report.md and soak/report.json; it exits 1 when a
// verdict fails. `make soak` runs it (SOAK_DURATION, SOAK_FLAGS).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/soak"
)

func main() {
	o := soak.FullOptions()
	var out string
	flag.DurationVar(&o.Duration, "duration", o.Duration, "How long the mischief lasts (setup and settle come on top).")
	flag.IntVar(&o.Lights, "lights", o.Lights, "HueLights, split over the bridges.")
	flag.IntVar(&o.Tables, "tables", o.Tables, "DynamoDBTables: a quarter each PAY_PER_REQUEST, PROVISIONED, and each with a global secondary index.")
	flag.IntVar(&o.Bridges, "bridges", o.Bridges, "Simulated v1 bridges; with two or more the last one flaps.")
	flag.IntVar(&o.V2Bridges, "v2-bridges", o.V2Bridges, "Simulated CLIP v2 bridges; the first one's connections are cut now and then; with two or more the last one flaps.")
	flag.IntVar(&o.ModelLights, "model-lights", o.ModelLights, "HueLights per bulb model and spec kind (in and beyond its reach) on the first bridge of each kind, left alone by the mischief.")
	flag.IntVar(&o.Groups, "groups", o.Groups, "HueGroups (each with a HueScene) on the first bridge of each kind.")
	flag.IntVar(&o.AccountTables, "account-tables", o.AccountTables, "DynamoDBTables of an AWSAccount (copies of the samples' tables: replicas, autoscaling, the newer features).")
	flag.DurationVar(&o.BurstEvery, "burst-every", o.BurstEvery, "Mean pause between bursts of distinct states on one bridge (temporary scenes).")
	flag.IntVar(&o.BurstLights, "burst-lights", o.BurstLights, "HueLights per burst.")
	flag.DurationVar(&o.GroupEditEvery, "group-edit-every", o.GroupEditEvery, "Mean pause between HueGroup edits (scene or brightness).")
	flag.DurationVar(&o.StreamCutEvery, "stream-cut-every", o.StreamCutEvery, "How often the first v2 bridge's connections are cut.")
	flag.DurationVar(&o.ThrottleEvery, "throttle-every", o.ThrottleEvery, "How often DynamoDB throttles half the calls...")
	flag.DurationVar(&o.ThrottleFor, "throttle-for", o.ThrottleFor, "...and for how long.")
	flag.DurationVar(&o.RestartEvery, "restart-every", o.RestartEvery, "How often the manager is restarted (SIGTERM and SIGKILL in turn).")
	flag.DurationVar(&o.FlapEvery, "flap-every", o.FlapEvery, "The flapping bridge goes offline once per this period.")
	flag.DurationVar(&o.FlapFor, "flap-for", o.FlapFor, "How long each time.")
	flag.DurationVar(&o.ChangeEvery, "change-every", o.ChangeEvery, "Mean pause between out-of-band changes to bulbs and tables.")
	flag.DurationVar(&o.SpecEditEvery, "spec-edit-every", o.SpecEditEvery, "Mean pause between spec edits through the API server.")
	flag.DurationVar(&o.SampleEvery, "sample-every", o.SampleEvery, "How often the manager is sampled.")
	flag.DurationVar(&o.WarmUp, "warm-up", o.WarmUp, "Left out of the flatness verdicts.")
	flag.DurationVar(&o.SettleTimeout, "settle-timeout", o.SettleTimeout, "Longest wait, after the mischief, for every object to be Ready and to match.")
	flag.DurationVar(&o.HuePoll, "hue-poll-interval", o.HuePoll, "The manager's --hue-poll-interval.")
	flag.DurationVar(&o.DDBPoll, "dynamodbtable-poll-interval", o.DDBPoll, "The manager's --dynamodbtable-poll-interval.")
	flag.DurationVar(&o.SecondaryRead, "dynamodb-secondary-read-interval", o.SecondaryRead, "The manager's --dynamodb-secondary-read-interval.")
	flag.Float64Var(&o.Limits.GoroutinePct, "max-goroutine-growth-pct", o.Limits.GoroutinePct, "Goroutines may grow by this percentage...")
	flag.Float64Var(&o.Limits.GoroutineAbs, "max-goroutine-growth", o.Limits.GoroutineAbs, "...or by this many, whichever is larger.")
	flag.Float64Var(&o.Limits.HeapPct, "max-heap-growth-pct", o.Limits.HeapPct, "The live heap may grow by this percentage.")
	flag.Uint64Var(&o.Seed, "seed", o.Seed, "Seed of the random mischief.")
	flag.StringVar(&o.WorkDir, "work-dir", "", "Keep the manager binary, kubeconfig and log here (default: a temporary folder, kept when a verdict fails).")
	flag.StringVar(&out, "out", "soak", "Folder for report.md and report.json.")
	flag.Parse()
	o.Progress = os.Stderr
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// A shorter soak keeps enough samples after a shorter warm-up for the
	// flatness verdicts (30m: 3m and 20s, as in FullOptions).
	if !set["warm-up"] {
		o.WarmUp = min(o.WarmUp, o.Duration/6)
	}
	if !set["sample-every"] {
		o.SampleEvery = max(5*time.Second, min(o.SampleEvery, o.Duration/90))
	}
	// ...and every periodic fault at least twice (30m: as in FullOptions).
	for name, every := range map[string]*time.Duration{"restart-every": &o.RestartEvery, "throttle-every": &o.ThrottleEvery,
		"stream-cut-every": &o.StreamCutEvery, "flap-every": &o.FlapEvery} {
		if !set[name] {
			*every = min(*every, o.Duration/3)
		}
	}
	if !set["throttle-for"] {
		o.ThrottleFor = min(o.ThrottleFor, o.ThrottleEvery/3)
	}
	if !set["flap-for"] {
		o.FlapFor = min(o.FlapFor, o.FlapEvery/3)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := soak.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	rep.Command = strings.Join(append([]string{"go run ./cmd/soak"}, os.Args[1:]...), " ")
	if err := rep.WriteFiles(out); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	for _, v := range rep.Verdicts {
		res := "pass"
		if !v.Passed {
			res = "FAIL"
		}
		fmt.Printf("%-4s  %-34s %s\n", res, v.Name, v.Value)
	}
	if !rep.Passed {
		fmt.Printf("soak FAILED; see %s/report.md\n", out)
		os.Exit(1)
	}
	fmt.Printf("soak passed; wrote %s/report.md and %s/report.json\n", out, out)
}

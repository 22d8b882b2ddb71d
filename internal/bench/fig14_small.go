package bench

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/internal/ddbtest"
)

// Figure 14 (issue 28 item 6): the manager with a few DynamoDBTables and
// nothing else, the set-up a team trying Tether for its tables starts with:
// no HueBridge, no AWSAccount, the operator's defaults but for the poll
// interval. What it holds in memory then is the baseline every kind and
// informer adds to, whatever the kinds in use.
func init() {
	registerAlone(14, "The small case: the manager with 50 tables and nothing else", true, (*run).small)
}

// smallRSSGoal is issue 28's bound on the small case's peak RSS, in MiB.
const smallRSSGoal = 50

const mib = 1 << 20

func (r *run) small(ctx context.Context, bin string) error {
	sc := r.sc
	srv, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return err
	}
	r.onStop(srv.Stop)
	if err := r.startTablesWorld(ctx, bin, srv.URL, nil, "--dynamodbtable-poll-interval="+sc.SmallPoll.String()); err != nil {
		return err
	}
	tables := make([]client.Object, sc.SmallTables)
	for i := range tables {
		tables[i] = newTable(fmt.Sprintf("small-%03d", i+1), i%2 == 1)
	}
	start := time.Now()
	if err := r.createAll(ctx, tables); err != nil {
		return err
	}
	if _, err := r.waitReady(ctx, true, wantAll(tables), 2*time.Minute+time.Duration(3*len(tables)/limiterRate)*time.Second, nil); err != nil {
		return err
	}
	ready := time.Since(start)
	r.proxy.ResetCounts()
	window := time.Duration(sc.SmallWindows) * sc.SmallPoll
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	u, err := r.op.Usage()
	if err != nil {
		return err
	}
	g, err := r.op.Gauges("go_goroutines", "go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes")
	if err != nil {
		return err
	}
	startup, err := startupRSS(bin)
	if err != nil {
		return err
	}
	f := r.fig(14)
	f.add("peak_rss", fmt.Sprintf("operator peak RSS (%d tables, nothing else)", len(tables)), "MiB", float64(u.PeakRSS)/mib,
		&goal{Op: "<=", Limit: smallRSSGoal})
	f.why("RSS now %.1f MiB, Go heap in use %.1f MiB, memory the Go runtime holds from the OS %.1f MiB, %.0f goroutines",
		float64(u.RSS)/mib, g["go_memstats_heap_inuse_bytes"]/mib, g["go_memstats_sys_bytes"]/mib, g["go_goroutines"])
	f.add("startup_rss", "its floor: the same binary's peak RSS when it only starts (manager --help: every package initialised, nothing connected)", "MiB", float64(startup)/mib, nil)
	f.add("above_startup", "peak RSS above that floor: what running with 50 tables adds", "MiB", float64(u.PeakRSS-startup)/mib, nil)
	f.add("rss", "operator RSS at the end", "MiB", float64(u.RSS)/mib, nil)
	f.add("heap_inuse", "Go heap in use at the end", "MiB", g["go_memstats_heap_inuse_bytes"]/mib, nil)
	f.add("go_sys", "memory the Go runtime holds from the OS at the end", "MiB", g["go_memstats_sys_bytes"]/mib, nil)
	f.add("goroutines", "goroutines at the end", "goroutines", g["go_goroutines"], nil)
	f.add("cpu", "operator CPU for the whole figure", "s", u.CPUTotal.Seconds(), nil)
	f.add("calls", "DynamoDB calls per table per poll interval", "calls", float64(r.proxy.Total())/float64(len(tables))/float64(sc.SmallWindows), nil)
	f.note("%d DynamoDBTables (half PAY_PER_REQUEST, half PROVISIONED) in one namespace, no AWSAccount, no Hue object; the manager binary with its defaults but --dynamodbtable-poll-interval=%s. "+
		"All Ready %s after creation; then %s watched. RSS from /proc/<pid>/status (VmHWM: the peak since the process started, start-up included).",
		len(tables), sc.SmallPoll, ready.Round(100*time.Millisecond), window)
	return nil
}

// startupRSS is the peak RSS, in bytes, of the manager binary run with
// --help: the memory it holds for its code and its packages' initialisation
// before it does anything (the kernel maps a binary's pages 64 KiB at a
// time as they are first touched).
func startupRSS(bin string) (int64, error) {
	cmd := exec.Command(bin, "--help")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s --help: %w", bin, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("no resource usage for %s --help", bin)
	}
	return ru.Maxrss * 1024, nil // kilobytes on Linux
}

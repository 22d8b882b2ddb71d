package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/internal/ddbtest"
)

// Figure 16 (issue 28 item 6): the manager with a few DynamoDBTables and
// nothing else, the set-up a team trying Tether for its tables starts with:
// no HueBridge, no AWSAccount, the operator's defaults but for the poll
// interval. What it holds in memory then is the baseline every kind and
// informer adds to, whatever the kinds in use.
func init() {
	registerAlone(16, "The small case: the manager with 50 tables and nothing else", true, (*run).small)
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
	startup, err := startupRSS(ctx, bin, r.runDir)
	if err != nil {
		return err
	}
	f := r.fig(16)
	f.add("peak_rss", fmt.Sprintf("operator peak RSS (%d tables, nothing else)", len(tables)), "MiB", float64(u.PeakRSS)/mib,
		&goal{Op: "<=", Limit: smallRSSGoal})
	f.why("RSS now %.1f MiB, Go heap in use %.1f MiB, memory the Go runtime holds from the OS %.1f MiB, %.0f goroutines",
		float64(u.RSS)/mib, g["go_memstats_heap_inuse_bytes"]/mib, g["go_memstats_sys_bytes"]/mib, g["go_goroutines"])
	f.add("startup_rss", "its floor: the same binary's peak RSS up to its first request (every package initialised, nothing read)", "MiB", float64(startup)/mib, nil)
	f.add("above_startup", fmt.Sprintf("peak RSS above that floor: what running with %d tables adds", len(tables)), "MiB", float64(u.PeakRSS-startup)/mib, nil)
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

// startupRSS is the peak RSS, in bytes, of the manager binary up to its
// first request to the API server: pointed at an address that takes the
// connection and never answers, it holds its code and its packages'
// initialisation, and nothing it read (the kernel maps a binary's pages 64
// KiB at a time as they are first touched). Read from /proc while it
// waits: a child's rusage would count the harness's own memory, which it
// shares until it execs.
func startupRSS(ctx context.Context, bin, dir string) (int64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	asked := make(chan struct{})
	go func() {
		var once sync.Once
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			once.Do(func() { close(asked) })
		}
	}()
	kubeconfig := filepath.Join(dir, "silent-kubeconfig")
	if err := os.WriteFile(kubeconfig, fmt.Appendf(nil, silentKubeconfig, ln.Addr()), 0o600); err != nil {
		return 0, err
	}
	cmd := exec.Command(bin, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	select {
	case <-asked:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(time.Minute):
		return 0, fmt.Errorf("%s never asked the API server anything", bin)
	}
	o := &Operator{cmd: cmd}
	u, err := o.Usage()
	return u.PeakRSS, err
}

// silentKubeconfig points at a listener that never answers.
const silentKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "http://%s"}
users:
- name: nobody
  user: {token: none}
contexts:
- name: silent
  context: {cluster: silent, user: nobody}
current-context: silent
`

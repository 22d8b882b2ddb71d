package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/testenv"
)

// Operator is the manager binary running as its own process, so that its
// memory and CPU are its own and can be read from /proc. The soak harness
// (internal/soak) runs it too.
type Operator struct {
	cmd        *exec.Cmd
	metricsURL string
	// LogPath holds the manager's stdout and stderr (its JSON log).
	LogPath string
	done    chan struct{}
}

// BuildManager builds ./cmd/manager into dir and returns the binary's path.
func BuildManager(dir string) (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := dirJoin(dir, "manager")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/manager: %w\n%s", err, out)
	}
	return bin, nil
}

func dirJoin(dir, name string) string { return strings.TrimRight(dir, "/") + "/" + name }

// startOperator runs the manager with the scale's poll intervals (and its
// profiles served where the options say).
func startOperator(ctx context.Context, bin, kubeconfig, dynamoURL string, opts Options, logPath string) (*Operator, error) {
	flags := []string{
		"--hue-poll-interval=" + opts.Scale.HuePoll.String(),
		"--dynamodbtable-poll-interval=" + opts.Scale.DDBPoll.String(),
	}
	if opts.OperatorPprof != "" {
		flags = append(flags, "--pprof-bind-address="+opts.OperatorPprof)
	}
	return StartOperator(ctx, bin, kubeconfig, dynamoURL, logPath, flags...)
}

// StartOperator runs the manager with the kubeconfig of the test API server,
// the AWS SDK pointed at dynamoURL and the given extra flags, and waits until
// its metrics answer.
func StartOperator(ctx context.Context, bin, kubeconfig, dynamoURL, logPath string, flags ...string) (*Operator, error) {
	return StartOperatorWithEnv(ctx, bin, kubeconfig, dynamoURL, nil, logPath, flags...)
}

// StartOperatorWithEnv is StartOperator with more environment variables
// (AWS_ENDPOINT_URL_STS for the STS model). Its metrics port is free when
// chosen; another process may take it before the manager binds it (the
// manager then exits, or the other process answers), so it is started
// again on another port (testenv.StartOnFreePort).
func StartOperatorWithEnv(ctx context.Context, bin, kubeconfig, dynamoURL string, extraEnv map[string]string, logPath string, flags ...string) (*Operator, error) {
	return testenv.StartOnFreePort(func(port int) (*Operator, error) {
		return startOperatorOn(ctx, port, bin, kubeconfig, dynamoURL, extraEnv, logPath, flags...)
	})
}

// startOperatorOn runs the manager with its metrics on port, and waits
// until they answer from its own process.
func startOperatorOn(ctx context.Context, port int, bin, kubeconfig, dynamoURL string, extraEnv map[string]string, logPath string, flags ...string) (*Operator, error) {
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", port)
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// Plain HTTP on loopback: with --metrics-secure every scrape's token
	// would be reviewed by the API server, and those requests would count
	// in the API-request figures the bench reports. installtest proves the
	// secure endpoint a deployment serves.
	// --aws-require-account=false: the tables of the figures use the
	// operator's own identity (DynamoDB Local) from namespaces of their own,
	// a cluster of one team; figure 8 names its AWSAccounts all the same.
	args := append([]string{"--metrics-bind-address=" + metricsAddr, "--metrics-secure=false", "--health-probe-bind-address=0",
		"--aws-require-account=false"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	for k, v := range ddbtest.EnvFor(dynamoURL) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range extraEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	o := &Operator{cmd: cmd, metricsURL: "http://" + metricsAddr + "/metrics", LogPath: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logFile.Close(); close(o.done) }()
	err = WaitUntil(ctx, 60*time.Second, 200*time.Millisecond, func() (bool, error) {
		select {
		case <-o.done:
			return false, exitedAtStartup(Tail(logPath, 30))
		default:
		}
		if _, err := o.Reconciles(); err != nil {
			return false, nil
		}
		return true, testenv.CheckListener(cmd.Process.Pid, port)
	})
	if err != nil {
		o.Stop()
		return nil, err
	}
	return o, nil
}

// exitedAtStartup is the error of a manager that exited before its
// metrics answered, with the end of its log: ErrPortTaken when it could
// not bind its metrics port (another process took it since it was free),
// so that it is started again on another; any other failure is final.
func exitedAtStartup(log string) error {
	err := fmt.Errorf("the operator exited at startup; its log:\n%s", log)
	if strings.Contains(log, "address already in use") {
		return fmt.Errorf("%w: %w", testenv.ErrPortTaken, err)
	}
	return err
}

// Stop sends SIGTERM, then SIGKILL after 10 s.
func (o *Operator) Stop() {
	if o.cmd.Process == nil {
		return
	}
	_ = o.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-o.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGKILL)
		<-o.done
	}
}

// Kill ends the process with SIGKILL at once, as a crash or an evicted
// pod would, and waits for it.
func (o *Operator) Kill() {
	if o.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGKILL)
	<-o.done
}

// Exited is closed when the process has ended.
func (o *Operator) Exited() <-chan struct{} { return o.done }

// MetricsURL is where the operator serves its metrics (plain HTTP).
func (o *Operator) MetricsURL() string { return o.metricsURL }

// Usage is what the kernel says the process used so far.
type Usage struct {
	PeakRSS  int64 // bytes, VmHWM
	RSS      int64 // bytes, VmRSS
	CPUTotal time.Duration
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// Usage reads the process's memory and CPU from /proc.
func (o *Operator) Usage() (Usage, error) {
	pid := o.cmd.Process.Pid
	var u Usage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmHWM:":
			u.PeakRSS = kb * 1024
		case "VmRSS:":
			u.RSS = kb * 1024
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// The command name may hold spaces: fields start after the last ')'.
	rest := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	// rest[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(rest) < 13 {
		return u, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(rest[11], 10, 64)
	stime, _ := strconv.ParseInt(rest[12], 10, 64)
	u.CPUTotal = time.Duration(utime+stime) * time.Second / clockTicks
	return u, nil
}

var (
	controllerLabel = regexp.MustCompile(`controller="([^"]+)"`)
	methodLabel     = regexp.MustCompile(`method="([^"]+)"`)
)

// Reconciles reads controller_runtime_reconcile_total by controller from the
// operator's metrics endpoint.
func (o *Operator) Reconciles() (map[string]float64, error) {
	return o.counter("controller_runtime_reconcile_total{", controllerLabel)
}

// apiRequests reads rest_client_requests_total (the operator's calls to the
// Kubernetes API server) by method.
// counters reads the reconcile and API-request counts in one go: the figures
// take one snapshot before and one after a window.
type counters struct{ reconciles, apiRequests map[string]float64 }

func (o *Operator) counters() (counters, error) {
	rc, err := o.Reconciles()
	if err != nil {
		return counters{}, err
	}
	api, err := o.apiRequests()
	return counters{reconciles: rc, apiRequests: api}, err
}

func (o *Operator) apiRequests() (map[string]float64, error) {
	return o.counter("rest_client_requests_total{", methodLabel)
}

// counter sums a counter's series by one label.
func (o *Operator) counter(prefix string, label *regexp.Regexp) (map[string]float64, error) {
	out := map[string]float64{}
	err := o.scrape(func(line string) {
		if !strings.HasPrefix(line, prefix) {
			return
		}
		m := label.FindStringSubmatch(line)
		fields := strings.Fields(line)
		if m == nil || len(fields) < 2 {
			return
		}
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return
		}
		out[m[1]] += v
	})
	return out, err
}

// Counter sums a counter's series by one label, e.g.
// Counter("tether_drift_corrections_total", "kind").
func (o *Operator) Counter(name, label string) (map[string]float64, error) {
	return o.counter(name+"{", regexp.MustCompile(regexp.QuoteMeta(label)+`="([^"]*)"`))
}

// Gauges reads series without labels (go_goroutines,
// go_memstats_heap_alloc_bytes) by name; names the endpoint lacks are left
// out of the map.
func (o *Operator) Gauges(names ...string) (map[string]float64, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	err := o.scrape(func(line string) {
		fields := strings.Fields(line)
		if len(fields) != 2 || !want[fields[0]] {
			return
		}
		if v, err := strconv.ParseFloat(fields[1], 64); err == nil {
			out[fields[0]] = v
		}
	})
	return out, err
}

// scrape calls f with each line of the metrics endpoint's answer.
func (o *Operator) scrape(f func(line string)) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(o.metricsURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f(sc.Text())
	}
	return sc.Err()
}

func sum(m map[string]float64) float64 {
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t
}

// Tail returns the last n lines of a file, for error messages.
func Tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	raw, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
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

// operator is the manager binary running as its own process, so that its
// memory and CPU are its own and can be read from /proc.
type operator struct {
	cmd        *exec.Cmd
	metricsURL string
	logPath    string
	done       chan struct{}
}

// buildManager builds ./cmd/manager into dir and returns the binary's path.
func buildManager(dir string) (string, error) {
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

// startOperator runs the manager with the kubeconfig of the test API server
// and the AWS SDK pointed at the proxy, and waits until its metrics answer.
func startOperator(ctx context.Context, bin, kubeconfig, dynamoURL string, sc Scale, logPath string) (*operator, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", port)
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin,
		"--metrics-bind-address="+metricsAddr,
		"--health-probe-bind-address=0",
		"--hue-poll-interval="+sc.HuePoll.String(),
		"--dynamodbtable-poll-interval="+sc.DDBPoll.String(),
	)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	for k, v := range ddbtest.EnvFor(dynamoURL) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	o := &operator{cmd: cmd, metricsURL: "http://" + metricsAddr + "/metrics", logPath: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logFile.Close(); close(o.done) }()
	err = waitUntil(ctx, 60*time.Second, 200*time.Millisecond, func() (bool, error) {
		select {
		case <-o.done:
			return false, fmt.Errorf("the operator exited at startup; its log:\n%s", tail(logPath, 30))
		default:
		}
		_, err := o.reconciles()
		return err == nil, nil
	})
	if err != nil {
		o.stop()
		return nil, err
	}
	return o, nil
}

// stop sends SIGTERM, then SIGKILL after 10 s.
func (o *operator) stop() {
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

// usage is what the kernel says the process used so far.
type usage struct {
	PeakRSS  int64 // bytes, VmHWM
	RSS      int64 // bytes, VmRSS
	CPUTotal time.Duration
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

func (o *operator) usage() (usage, error) {
	pid := o.cmd.Process.Pid
	var u usage
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

// reconciles reads controller_runtime_reconcile_total by controller from the
// operator's metrics endpoint.
func (o *operator) reconciles() (map[string]float64, error) {
	return o.counter("controller_runtime_reconcile_total{", controllerLabel)
}

// apiRequests reads rest_client_requests_total (the operator's calls to the
// Kubernetes API server) by method.
// counters reads the reconcile and API-request counts in one go: the figures
// take one snapshot before and one after a window.
type counters struct{ reconciles, apiRequests map[string]float64 }

func (o *operator) counters() (counters, error) {
	rc, err := o.reconciles()
	if err != nil {
		return counters{}, err
	}
	api, err := o.apiRequests()
	return counters{reconciles: rc, apiRequests: api}, err
}

func (o *operator) apiRequests() (map[string]float64, error) {
	return o.counter("rest_client_requests_total{", methodLabel)
}

// counter sums a counter's series by one label.
func (o *operator) counter(prefix string, label *regexp.Regexp) (map[string]float64, error) {
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(o.metricsURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		m := label.FindStringSubmatch(line)
		fields := strings.Fields(line)
		if m == nil || len(fields) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			continue
		}
		out[m[1]] += v
	}
	return out, sc.Err()
}

func sum(m map[string]float64) float64 {
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
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

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

package crashtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/testenv"
)

var (
	env        *testenv.Env
	kubeconfig string
	managerBin string
	local      *ddbtest.Server
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tether-crashtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if managerBin, err = buildManager(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if env, err = testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if kubeconfig, err = writeKubeconfig(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if local, err = ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer local.Stop()
	return m.Run()
}

func buildManager(dir string) (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "manager")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/manager: %w\n%s", err, out)
	}
	return bin, nil
}

// writeKubeconfig turns the test API server's admin credentials into a
// kubeconfig file for the manager processes.
func writeKubeconfig(dir string) (string, error) {
	cfg := env.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*kc, path)
}

// manager is one operator process.
type manager struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

// startManager runs ./cmd/manager against the test API server with the AWS
// SDK pointed at dynamoURL.
func startManager(t *testing.T, name, dynamoURL string, args ...string) *manager {
	t.Helper()
	return startManagerWith(t, name, dynamoURL, nil, args...)
}

// startManagerWith is startManager with environment variables of its own
// (other credentials, another STS) over ddbtest's.
func startManagerWith(t *testing.T, name, dynamoURL string, vars map[string]string, args ...string) *manager {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The tables use the operator's own identity from a namespace of their
	// own (one team, one account): --aws-require-account=false.
	args = append([]string{"--metrics-bind-address=0", "--health-probe-bind-address=0", "--zap-log-level=debug",
		"--aws-require-account=false"}, args...)
	cmd := exec.Command(managerBin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	for k, v := range ddbtest.EnvFor(dynamoURL) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v) // the last value of a key wins (os/exec)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The manager dies with the test binary, whatever happens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &manager{t: t, name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = logFile.Close(); close(m.done) }()
	t.Cleanup(func() {
		m.kill()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, m.logTail(6000))
		}
	})
	return m
}

// kill sends SIGKILL to this manager's process and waits for it to exit.
func (m *manager) kill() {
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
}

func (m *manager) log() string {
	data, _ := os.ReadFile(m.logPath)
	return string(data)
}

func (m *manager) logTail(n int) string {
	s := m.log()
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (m *manager) isLeader() bool {
	return strings.Contains(strings.ToLower(m.log()), "successfully acquired lease")
}

// write is one call that changes something in DynamoDB.
type write struct {
	Op string
	At time.Time
}

// countingProxy forwards to DynamoDB Local, records the writes that pass,
// and can hold CreateTable's answer (after DynamoDB made the table) until
// released or the caller hangs up.
type countingProxy struct {
	*httptest.Server
	mu      sync.Mutex
	writes  []write
	hold    bool
	held    chan string // table names whose CreateTable answer is held
	release chan struct{}
}

var writeOps = map[string]bool{"CreateTable": true, "UpdateTable": true, "DeleteTable": true, "TagResource": true,
	"UntagResource": true, "UpdateTimeToLive": true, "UpdateContinuousBackups": true}

func newCountingProxy(t *testing.T, hold bool) *countingProxy {
	t.Helper()
	target, err := url.Parse(local.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{hold: hold, held: make(chan string, 10), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(res *http.Response) error {
		op := operation(res.Request)
		if op == "CreateTable" && res.StatusCode == http.StatusOK && p.holding() {
			p.held <- op
			select {
			case <-p.release:
			case <-res.Request.Context().Done():
			}
		}
		return nil
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if op := operation(r); writeOps[op] {
			p.mu.Lock()
			p.writes = append(p.writes, write{Op: op, At: time.Now()})
			p.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		p.stopHolding()
		p.Close()
	})
	return p
}

func operation(r *http.Request) string {
	target := r.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return target
}

func (p *countingProxy) holding() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hold
}

// stopHolding releases any held answer and holds no more.
func (p *countingProxy) stopHolding() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold {
		p.hold = false
		close(p.release)
	}
}

func (p *countingProxy) Writes() []write {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]write(nil), p.writes...)
}

func (p *countingProxy) count(op string) int {
	n := 0
	for _, w := range p.Writes() {
		if w.Op == op {
			n++
		}
	}
	return n
}

// Package ddbtest starts real DynamoDB endpoints for tests: AWS's DynamoDB
// Local (Java) and dynalite (Node), both installed by npm under hack/npm.
// Each runs on a free port in its own process group and is killed with its
// children when the test ends.
package ddbtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/testenv"

	"github.com/tether-dev/tether/internal/repo"
)

// Server is a running endpoint.
type Server struct {
	// URL is the endpoint's base URL (http://127.0.0.1:port).
	URL  string
	Name string

	port int
	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan struct{}
}

// LocalOptions tune DynamoDB Local.
type LocalOptions struct {
	// DelayTransientStatuses makes tables and indexes stay CREATING,
	// UPDATING or DELETING for a short while, as on AWS. Beware: with it,
	// DynamoDB Local 1.25.1 left an index added by UpdateTable CREATING for
	// over a minute; dynalite's delays are the better tool for transitions.
	DelayTransientStatuses bool
}

// DynaliteOptions tune dynalite; the delays are how long a table stays in
// its transient status.
type DynaliteOptions struct {
	CreateTableMs int
	UpdateTableMs int
	DeleteTableMs int
}

// StartDynamoDBLocal runs AWS's DynamoDB Local in memory, listening on
// 127.0.0.1 only (as everything else the tests and the demo start) and
// sending no telemetry.
func StartDynamoDBLocal(opts LocalOptions) (*Server, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	emulator := filepath.Join(root, "hack/npm/node_modules/amplify-dynamodb-simulator/emulator")
	jar := filepath.Join(emulator, "DynamoDBLocal.jar")
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("DynamoDB Local is not installed (run npm ci in hack/npm): %w", err)
	}
	// DynamoDB Local itself would listen on every interface: its launcher
	// binds it to loopback.
	launcher := filepath.Join(root, "internal/ddbtest/LoopbackDynamoDBLocal.java")
	return launch("DynamoDB Local", emulator, "java", func(port int) []string {
		args := []string{"-Djava.library.path=" + filepath.Join(emulator, "DynamoDBLocal_lib"),
			"-cp", jar, launcher, "-inMemory", "-port", strconv.Itoa(port), "-disableTelemetry"}
		if opts.DelayTransientStatuses {
			args = append(args, "-delayTransientStatuses")
		}
		return args
	})
}

// StartDynalite runs dynalite in memory.
func StartDynalite(opts DynaliteOptions) (*Server, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	cli := filepath.Join(root, "hack/npm/node_modules/dynalite/cli.js")
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("dynalite is not installed (run npm ci in hack/npm): %w", err)
	}
	return launch("dynalite", root, "node", func(port int) []string {
		return []string{cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"--createTableMs", strconv.Itoa(opts.CreateTableMs),
			"--updateTableMs", strconv.Itoa(opts.UpdateTableMs),
			"--deleteTableMs", strconv.Itoa(opts.DeleteTableMs)}
	})
}

// launch starts a server on a free port, and on another one when the
// process exits before it answers.
func launch(name, dir, bin string, args func(port int) []string) (*Server, error) {
	return testenv.StartOnFreePort(func(port int) (*Server, error) { return start(name, port, dir, bin, args(port)...) })
}

func start(name string, port int, dir, bin string, args ...string) (*Server, error) {
	out := &testenv.SyncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so Stop also kills anything it forked; and
	// killed by the kernel if the test binary dies without calling Stop
	// (a TestMain that cannot stop a shared server).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Name: name, port: port, cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.waitUntilAnswering(60 * time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%s did not answer: %w\n%s", name, err, out.String())
	}
	return s, nil
}

// waitUntilAnswering polls with a real (unsigned) API call until DynamoDB's
// JSON answers it, even as an authentication error, from the server's own
// process: an answer of another kind, or from another process, is not this
// server's (the port was taken before it bound it).
func (s *Server) waitUntilAnswering(timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.done:
			return testenv.ErrExited
		default:
		}
		err := askListTables(client, s.URL)
		if err == nil {
			return testenv.CheckListener(s.cmd.Process.Pid, s.port)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// askListTables sends an unsigned ListTables and checks that the answer
// is DynamoDB's: a list of tables, or an error typed as DynamoDB types its
// errors ("__type").
func askListTables(client *http.Client, url string) error {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var answer struct {
		Type       *string   `json:"__type"`
		TableNames *[]string `json:"TableNames"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&answer); err != nil || answer.Type == nil && answer.TableNames == nil {
		return fmt.Errorf("%s answered HTTP %d, not as DynamoDB", url, resp.StatusCode)
	}
	return nil
}

// Stop kills the process group and waits for the process to exit.
func (s *Server) Stop() {
	if s == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
	}
}

// Output is what the server printed so far.
func (s *Server) Output() string { return s.out.String() }

// Env is what makes aws-sdk-go-v2's default chain talk to this server with
// dummy credentials; both endpoints accept any credentials
// made of letters and digits (DynamoDB Local rejects others).
func (s *Server) Env() map[string]string { return EnvFor(s.URL) }

// AccessKeyID is the dummy access key id of EnvFor's environment.
const AccessKeyID = "tethertest"

// EnvFor returns the environment for any endpoint URL (a fault proxy too),
// with the process's STS model (sts.go) to tell the operator its account.
func EnvFor(url string) map[string]string {
	env := map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": url,
		"AWS_ACCESS_KEY_ID":         AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":     "tethertest",
		"AWS_REGION":                "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true",
	}
	if sts := callerSTS(); sts != "" {
		env["AWS_ENDPOINT_URL_STS"] = sts
	}
	return env
}

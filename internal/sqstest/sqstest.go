// Package sqstest starts an SQS endpoint for tests: goaws (an SQS emulator
// in Go, github.com/Admiral-Piett/goaws, from the Go module proxy), built
// from its tool module hack/tools/goaws, which puts a JSON 1.0 front on it
// for aws-sdk-go-v2's SQS client (see that command's comment). It runs on a
// free port in its own process group and is killed when the test ends.
package sqstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tether-dev/tether/internal/repo"
	"github.com/tether-dev/tether/internal/testenv"
)

// Region and AccountID are what the emulator puts in its queues' ARNs and
// URLs unless Options say otherwise.
const (
	Region    = "us-east-1"
	AccountID = "123456789012"
)

// Options tune the emulator.
type Options struct {
	// AccountID and Region appear in the queues' ARNs and URLs.
	AccountID, Region string
}

// Server is a running emulator.
type Server struct {
	// URL is the endpoint (http://127.0.0.1:port).
	URL       string
	AccountID string
	Region    string

	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan struct{}
}

// Start runs the emulator.
func Start(opts Options) (*Server, error) {
	if opts.AccountID == "" {
		opts.AccountID = AccountID
	}
	if opts.Region == "" {
		opts.Region = Region
	}
	bin, err := build()
	if err != nil {
		return nil, err
	}
	return testenv.StartOnFreePort(func(port int) (*Server, error) { return start(bin, port, opts) })
}

func start(bin string, port int, opts Options) (*Server, error) {
	out := &testenv.SyncBuffer{}
	cmd := exec.Command(bin, "-listen", fmt.Sprintf("127.0.0.1:%d", port), "-account", opts.AccountID, "-region", opts.Region)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, killed by the kernel if the test binary dies
	// without calling Stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start goaws: %w", err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), AccountID: opts.AccountID, Region: opts.Region,
		cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.waitUntilAnswering(port, 30*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("goaws did not answer: %w\n%s", err, out.String())
	}
	return s, nil
}

// waitUntilAnswering asks for the queues with the SDK until an answer comes,
// from goaws's own process (not another one that took its port).
func (s *Server) waitUntilAnswering(port int, timeout time.Duration) error {
	c := s.Client()
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.done:
			return testenv.ErrExited
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := c.ListQueues(ctx, &sqs.ListQueuesInput{})
		cancel()
		if err == nil {
			return testenv.CheckListener(s.cmd.Process.Pid, port)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Client is aws-sdk-go-v2's own SQS client for this endpoint, with dummy
// credentials (the emulator checks none).
func (s *Server) Client() *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("sqstest", "sqstest", ""),
	})
}

// CreateQueue makes a queue and returns its URL and ARN.
func (s *Server) CreateQueue(ctx context.Context, name string, attributes map[string]string) (url, arn string, err error) {
	out, err := s.Client().CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attributes})
	if err != nil {
		return "", "", err
	}
	return aws.ToString(out.QueueUrl), s.QueueARN(name), nil
}

// build compiles hack/tools/goaws once per test binary (the Go build cache
// makes it quick after the first time) into the repository's bin/, which
// git ignores: one binary for every test binary, not a temporary directory
// each that nothing removes. It is built beside its place and renamed
// there, so that test binaries building at once never run a half-written
// file.
func build() (string, error) {
	buildOnce.Do(func() {
		root, err := repo.Root()
		if err != nil {
			buildErr = err
			return
		}
		dir := filepath.Join(root, "bin")
		if buildErr = os.MkdirAll(dir, 0o755); buildErr != nil {
			return
		}
		tmp, err := os.CreateTemp(dir, ".goaws-*")
		if err != nil {
			buildErr = err
			return
		}
		_ = tmp.Close()
		defer os.Remove(tmp.Name())
		cmd := exec.Command("go", "build", "-o", tmp.Name(), ".")
		cmd.Dir = filepath.Join(root, "hack/tools/goaws")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building goaws (hack/tools/goaws): %w\n%s", err, out)
			return
		}
		built = filepath.Join(dir, "goaws")
		buildErr = os.Rename(tmp.Name(), built)
	})
	return built, buildErr
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// QueueARN is the ARN the emulator gives a queue of that name.
func (s *Server) QueueARN(name string) string {
	return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", s.Region, s.AccountID, name)
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

// Output is what the emulator printed so far.
func (s *Server) Output() string { return s.out.String() }

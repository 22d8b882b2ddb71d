package ddbtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
)

// A server that exits before it answers (another process took the port
// FreePort released) is started again on another port; one that keeps
// exiting fails the start after PortAttempts, naming each failure. The
// servers here are node one-liners, node being what runs dynalite.
func TestLaunchTriesAnotherPortWhenTheServerExits(t *testing.T) {
	var ports []int
	s, err := launch("fake DynamoDB", t.TempDir(), "node", func(port int) []string {
		ports = append(ports, port)
		if len(ports) == 1 {
			return []string{"-e", "process.exit(1)"}
		}
		return []string{"-e", fmt.Sprintf(`require("http").createServer((q, r) => r.end('{"TableNames":[]}')).listen(%d, "127.0.0.1")`, port)}
	})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer s.Stop()
	if len(ports) != 2 {
		t.Fatalf("started %d times (ports %v), want 2", len(ports), ports)
	}
	if want := fmt.Sprintf("http://127.0.0.1:%d", ports[1]); s.URL != want {
		t.Fatalf("URL %s, want the second port's %s", s.URL, want)
	}

	tries := 0
	_, err = launch("fake DynamoDB", t.TempDir(), "node", func(int) []string {
		tries++
		return []string{"-e", "process.exit(1)"}
	})
	if !errors.Is(err, testenv.ErrExited) || tries != testenv.PortAttempts {
		t.Fatalf("a server that always exits: %d tries, error %v; want %d tries and ErrExited", tries, err, testenv.PortAttempts)
	}
}

// Only DynamoDB's JSON counts as DynamoDB answering: a list of tables, or
// an error typed as DynamoDB types its errors (what DynamoDB Local answers
// an unsigned call). Any other HTTP answer is another server.
func TestOnlyDynamoDBsAnswerCounts(t *testing.T) {
	cases := []struct {
		name, body string
		status     int
		ok         bool
	}{
		{"tables", `{"TableNames":["orders"]}`, http.StatusOK, true},
		{"typed error", `{"__type":"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken","Message":"Request must contain a signature"}`, http.StatusBadRequest, true},
		{"another JSON server", `{"status":"ok"}`, http.StatusOK, false},
		{"a web page", `<html>hello</html>`, http.StatusOK, false},
		{"not found", ``, http.StatusNotFound, false},
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			err := askListTables(client, srv.URL)
			if (err == nil) != c.ok {
				t.Fatalf("answer %q: error %v, want ok=%v", c.body, err, c.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "not as DynamoDB") {
				t.Fatalf("error %q does not say the answer is not DynamoDB's", err)
			}
		})
	}
}

// A DynamoDB answer on the server's port from another process (another
// test's DynamoDB Local that took the port first: this one then only
// prints that it could not start) is not the server's: the start tries
// another port.
func TestAnAnswerFromAnotherProcessIsNotTheServers(t *testing.T) {
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"TableNames":[]}`))
	}))
	defer thief.Close()
	ours := exec.Command("node", "-e", "setTimeout(() => {}, 60000)")
	ours.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as start makes it, for Stop
	if err := ours.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: thief.URL, Name: "fake DynamoDB", port: thief.Listener.Addr().(*net.TCPAddr).Port, cmd: ours,
		out: &testenv.SyncBuffer{}, done: make(chan struct{})}
	go func() { _ = ours.Wait(); close(s.done) }()
	defer s.Stop()
	if err := s.waitUntilAnswering(10 * time.Second); !errors.Is(err, testenv.ErrPortTaken) {
		t.Fatalf("an answer from this test's process taken as the server's: %v, want ErrPortTaken", err)
	}
}

package ddbtest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

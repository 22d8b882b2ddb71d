package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestAnOperatorThatExitsAtStartIsStartedAgainOnAnotherPort stands in for a
// manager whose metrics port another process took between its release and
// the manager's bind: the manager then exits at startup. A script that
// notes its --metrics-bind-address and exits shows that the start is tried
// again, on another port each time, and that the failure says the process
// exited, with its log.
func TestAnOperatorThatExitsAtStartIsStartedAgainOnAnotherPort(t *testing.T) {
	dir := t.TempDir()
	tried := filepath.Join(dir, "tried")
	bin := filepath.Join(dir, "manager")
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-bind-address=*) echo \"${a#*=}\" >> " + tried + ";; esac; done\necho cannot bind the metrics port\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := StartOperator(ctx, bin, "kubeconfig", "http://127.0.0.1:1", filepath.Join(dir, "log"))
	if !errors.Is(err, testenv.ErrExited) || !strings.Contains(err.Error(), "cannot bind the metrics port") {
		t.Fatalf("the start failed with %v; want an exit at startup, with the manager's log", err)
	}
	out, err := os.ReadFile(tried)
	if err != nil {
		t.Fatal(err)
	}
	addrs := strings.Fields(string(out))
	seen := map[string]bool{}
	for _, a := range addrs {
		seen[a] = true
	}
	if len(addrs) != testenv.PortAttempts || len(seen) != testenv.PortAttempts {
		t.Fatalf("the manager was started on %v; want %d starts on distinct ports", addrs, testenv.PortAttempts)
	}
}

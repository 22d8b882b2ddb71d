package testenv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FreePort is a loopback port that was free a moment ago: a process
// started on it may find it taken by then, which StartOnFreePort answers.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreeAddr is FreePort as a loopback address (127.0.0.1:PORT), for a
// binary's bind flags; it fails the test when no port is free.
func FreeAddr(t testing.TB) string {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// ErrExited is a server process that exited before it answered.
var ErrExited = errors.New("process exited")

// ErrPortTaken is an answer on a server's port from another process: the
// port was taken between its release and the server's bind (DynamoDB
// Local then only prints that it could not start, and lives on).
var ErrPortTaken = errors.New("another process listens on the port")

// PortAttempts is how many free ports StartOnFreePort tries.
const PortAttempts = 3

// StartOnFreePort starts a server process on a free port (FreePort), and
// on another one when it exits before it answers, or another process
// answers on its port (start's error wraps ErrExited or ErrPortTaken):
// another process may take a port between its release and the server's
// bind. Any other failure, or PortAttempts of those, fails it, with each
// attempt's error.
func StartOnFreePort[S any](start func(port int) (S, error)) (S, error) {
	var zero S
	var errs []error
	for range PortAttempts {
		port, err := FreePort()
		if err != nil {
			return zero, err
		}
		s, err := start(port)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
		if !errors.Is(err, ErrExited) && !errors.Is(err, ErrPortTaken) {
			break
		}
	}
	return zero, errors.Join(errs...)
}

// CheckListener is nil when the process pid listens on port (the server a
// test started answers on its port itself), ErrPortTaken when it does not,
// ErrExited when it is gone.
// It reads Linux's tables of sockets: /proc/net/tcp and tcp6 name each
// listening socket's inode, and /proc/PID/fd links to the sockets the
// process holds.
func CheckListener(pid, port int) error {
	inodes, err := listeningInodes(port)
	if err != nil {
		return err
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		// It ended (and was reaped) since it answered, or the answer was
		// another process's: either way the start is tried again.
		return fmt.Errorf("pid %d: %w", pid, ErrExited)
	}
	if err != nil {
		return err
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err == nil && inodes[link] {
			return nil
		}
	}
	return fmt.Errorf("port %d: %w", port, ErrPortTaken)
}

// listeningInodes are the sockets listening on port, as /proc/net/tcp and
// tcp6 name them ("socket:[INODE]"): a line's local address ends in the
// port in hex, its state is 0A (LISTEN), and its tenth field is the inode.
func listeningInodes(port int) (map[string]bool, error) {
	want := fmt.Sprintf(":%04X", port)
	out := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6
		}
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && strings.HasSuffix(f[1], want) && f[3] == "0A" {
				out["socket:["+f[9]+"]"] = true
			}
		}
	}
	return out, nil
}

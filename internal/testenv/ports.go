package testenv

import (
	"errors"
	"net"
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

// ErrExited is a server process that exited before it answered.
var ErrExited = errors.New("process exited")

// PortAttempts is how many free ports StartOnFreePort tries.
const PortAttempts = 3

// StartOnFreePort starts a server process on a free port (FreePort), and
// on another one when it exits before it answers (start's error wraps
// ErrExited): another process may take a port between its release and the
// server's bind. Any other failure, or PortAttempts exits, fails it, with
// each attempt's error.
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
		if !errors.Is(err, ErrExited) {
			break
		}
	}
	return zero, errors.Join(errs...)
}

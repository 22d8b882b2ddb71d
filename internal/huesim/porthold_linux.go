package huesim

import (
	"context"
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// A bridge taken off the network with Refuse must come back on the same
// ports, but a released port is fair game for any other process: a ":0"
// listener's port comes from the range outgoing connections use too
// (ip_local_port_range). Offline waits until the old listeners' sockets are
// closed (server.go), so they do not stand in the way themselves.
//
// So the listeners share their ports (SO_REUSEPORT), and while offline a
// socket that is bound but never listens keeps each port. Connections to a
// port nobody listens on are answered with a reset ("connection refused"),
// and the kernel gives a bound port to no one else: neither a connect's
// local port nor a ":0" bind (see tcp(7) and socket(7) on SO_REUSEPORT).

// listenShared listens on addr so that a port hold can share the port.
func listenShared(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		return setReusePort(c)
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}

func setReusePort(c syscall.RawConn) error {
	var sockErr error
	err := c.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	})
	if err != nil {
		return err
	}
	return sockErr
}

// portHold keeps a TCP port bound, and not listening, until released.
type portHold struct{ fd int }

// holdPort binds a socket to addr (host:port of a listenShared listener)
// without listening on it.
func holdPort(addr string) (*portHold, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()})
	if ap.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			_ = unix.Close(fd)
			return nil, err
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return &portHold{fd: fd}, nil
}

// release gives the port back; a nil hold releases nothing.
func (h *portHold) release() {
	if h != nil {
		_ = unix.Close(h.fd)
	}
}

package huesim

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
	"testing"

	"github.com/amimof/huego"

	"golang.org/x/sys/unix"
)

// TestOfflineKeepsThePorts: while a bridge is offline with Refuse, clients
// are refused on both ports, yet each port stays bound, so no other socket
// can be given it and Online finds it free; Close gives them back. The plain
// bind below fails only because the hold is there: without it the port
// would be free, as the refused dial shows no listener is left.
func TestOfflineKeepsThePorts(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	addrs := []string{s.Addr(), s.TLSAddr()}

	s.Offline(Refuse)
	for _, addr := range addrs {
		if err := dialOnce(addr); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial %s while offline: %v, want connection refused", addr, err)
		}
		if err := bindPlain(t, addr); !errors.Is(err, unix.EADDRINUSE) {
			t.Fatalf("bind %s while offline: %v, want the port still in use", addr, err)
		}
	}
	if err := s.Online(); err != nil {
		t.Fatal(err)
	}
	for _, addr := range addrs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %s after Online: %v", addr, err)
		}
		c.Close()
	}
	if got := []string{s.Addr(), s.TLSAddr()}; got[0] != addrs[0] || got[1] != addrs[1] {
		t.Fatalf("back on %v, want the same ports %v", got, addrs)
	}

	s.Offline(Refuse)
	s.Close()
	if len(s.holds) != 0 {
		t.Fatalf("Close kept %d ports", len(s.holds))
	}
}

// TestOfflineOnlineBackToBack: Online right after Offline comes back on the
// same port, and answers. Go closes a listener's socket only once its Accept
// has returned; when Offline did not wait for that, the first cycle failed
// with "address already in use", as in CI, and with shared ports alone a
// client could still reach the closing socket and be reset.
func TestOfflineOnlineBackToBack(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for i := 0; i < 100; i++ {
		s.Offline(Refuse)
		if err := s.Online(); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
	}
	if _, err := huego.New(s.Addr(), "u").GetLights(); err != nil {
		t.Fatalf("GetLights after 100 cycles: %v", err)
	}
}

// dialOnce connects to addr and hangs up, returning the error.
func dialOnce(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return err
}

// bindPlain binds a socket with no reuse options to addr, and closes it.
func bindPlain(t *testing.T, addr string) error {
	t.Helper()
	ap := netip.MustParseAddrPort(addr)
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	return unix.Bind(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
}

package testenv

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// CheckListener tells the process listening on a port from any other: this
// test's process holds one listener, a child process (node, as dynalite
// runs) another. It is what keeps a server from being taken for one that
// answers on its port from another process.
func TestCheckListenerTellsWhoListens(t *testing.T) {
	own, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	ownPort := own.Addr().(*net.TCPAddr).Port
	if err := CheckListener(os.Getpid(), ownPort); err != nil {
		t.Fatalf("own listener on %d: %v", ownPort, err)
	}

	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("node", "-e", `require("net").createServer().listen(`+strconv.Itoa(port)+`, "127.0.0.1")`)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	NewWithT(t).Eventually(func() error { return CheckListener(child.Process.Pid, port) }, 10*time.Second, 20*time.Millisecond).
		Should(Succeed(), "the child listens on %d", port)
	if err := CheckListener(os.Getpid(), port); !errors.Is(err, ErrPortTaken) {
		t.Fatalf("the child's port %d as this process's: %v, want ErrPortTaken", port, err)
	}
	if err := CheckListener(child.Process.Pid, ownPort); !errors.Is(err, ErrPortTaken) {
		t.Fatalf("this process's port %d as the child's: %v, want ErrPortTaken", ownPort, err)
	}
}

// A process that has ended is ErrExited, so that a start whose server
// exited just after another process answered on its port tries another.
func TestCheckListenerOfAnEndedProcessIsExited(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	if err := CheckListener(ended.Process.Pid, 1); !errors.Is(err, ErrExited) {
		t.Fatalf("an ended process: %v, want ErrExited", err)
	}
}

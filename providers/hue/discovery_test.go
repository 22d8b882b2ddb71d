package hue

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The mDNS tests need multicast, which the machine's own loopback does not
// carry, and must not send queries onto a real network. So each re-runs
// itself in a network namespace of its own (unshare --net, as root): there
// loopback is the only interface, and the test gives it multicast or not.
// Where no namespace can be made (not root, no unshare or ip) the test
// skips and says why.

const inNetnsEnv = "TETHER_TEST_IN_NETNS"

// inOwnNetns runs the calling test in a new network namespace and reports
// true when the caller is that run (then it should go on); the outer run
// returns false after checking the inner one passed.
func inOwnNetns(t *testing.T, multicast bool) bool {
	t.Helper()
	if os.Getenv(inNetnsEnv) != "" {
		run := func(args ...string) {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Fatalf("ip %s: %v %s", strings.Join(args, " "), err, out)
			}
		}
		run("link", "set", "lo", "up")
		if multicast {
			run("link", "set", "lo", "multicast", "on")
			run("route", "add", "224.0.0.0/4", "dev", "lo")
		}
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a network namespace with multicast (CI runs as root)")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (util-linux, iproute2) to make a network namespace", tool)
		}
	}
	cmd := exec.Command("unshare", "--net", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), inNetnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the run in its own network namespace failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the run in its own network namespace did not pass:\n%s", out)
	}
	t.Logf("passed in its own network namespace:\n%s", out)
	return false
}

// TestDiscoveryByMDNS: a HueBridge's bridge found by its id over real
// multicast: the simulator answers as a bridge does (_hue._tcp, TXT
// bridgeid), and the address found reaches its CLIP v2 API with the
// certificate checked against that id.
func TestDiscoveryByMDNS(t *testing.T) {
	if !inOwnNetns(t, true) {
		return
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}, BridgeID: "001788FFFE4D5E6F"})
	other := huetest.StartSim(t, huesim.Options{Lights: []string{"hall"}})
	for _, s := range []*huesim.Server{other, sim} {
		stop, err := s.AnnounceMDNS(lo)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	discover := wire.DiscoverMDNS(2*time.Second, lo)
	ctx := context.Background()
	addr, err := discover(ctx, "001788fffe4d5e6f")
	if err != nil || addr != sim.TLSAddr() {
		t.Fatalf("found %q (%v), want %s", addr, err, sim.TLSAddr())
	}
	c, err := wire.NewClientV2(addr, huetest.User, 2*time.Second, wire.Trust{CABundle: sim.CACertPEM(), BridgeID: "001788FFFE4D5E6F"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := c.Config(ctx); err != nil || !cfg.Authorized {
		t.Fatalf("the bridge found: %+v %v", cfg, err)
	}
	if addr, err := wire.DiscoverMDNS(500*time.Millisecond, lo)(ctx, "001788fffe000001"); addr != "" || err != nil {
		t.Fatalf("a bridge nobody announces: %q %v", addr, err)
	}
}

// TestDiscoveryWithoutMulticast: where there is no multicast (loopback
// without it, as in a pod without hostNetwork), the search cannot run and
// the HueBridge is told to give an address.
func TestDiscoveryWithoutMulticast(t *testing.T) {
	if !inOwnNetns(t, false) {
		return
	}
	lo, _ := net.InterfaceByName("lo")
	r := NewRegistry(nil, nil, Settings{Discover: wire.DiscoverMDNS(500*time.Millisecond, lo)}, logr.Discard())
	b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"}, Spec: huev1alpha1.HueBridgeSpec{BridgeID: "001788FFFE4D5E6F"}}
	_, err := r.dialer.address(context.Background(), b)
	reason, _ := asRetry(err)
	if reason != ReasonBridgeNotDiscovered || !strings.Contains(err.Error(), "set spec.address") {
		t.Fatalf("got %v", err)
	}
}

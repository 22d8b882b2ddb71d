// Package apiserverfault proves that the manager recovers when it loses the
// API server: its connections (and so its watches) dropped and refused for a
// while, and the kube-apiserver process itself stopped and started again on
// the same port over the same etcd. The manager runs in-process, talking to
// the API server only through a TCP proxy the test can cut; the test talks to
// the API server directly, so it can change things the manager can only learn
// by listing and watching again once it is back.
package apiserverfault

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tether-dev/tether/api"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
)

const (
	// timeout allows for client-go's reconnect backoff, which grows to
	// tens of seconds while the API server stays away.
	timeout  = 2 * time.Minute
	poll     = 200 * time.Millisecond
	room     = "rooms"
	secretNS = "tether-system"
	username = "apiserverfault-user"
)

func TestManagerRecoversFromLosingTheAPIServer(t *testing.T) {
	var logs testenv.SyncBuffer
	ctrl.SetLogger(zap.New(zap.WriteTo(io.MultiWriter(os.Stderr, &logs))))
	g := NewWithT(t)
	ctx := context.Background()

	env, apiServerAddr := startAPIServer(t)
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	proxy, err := newCutProxy(apiServerAddr)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(proxy.Close)
	managerDone := startManager(t, env, proxy.Addr())

	// A paired bridge with six bulbs.
	sim, err := huesim.Start(huesim.Options{
		Lights:    []string{"hallway", "kitchen", "porch", "attic", "den", "garage"},
		Usernames: []string{username},
	}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)
	for _, n := range []string{secretNS, room} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})).To(Succeed())
	}
	g.Expect(k8s.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretNS, Name: "hue-home"},
		StringData: map[string]string{huev1alpha1.CredentialsKey: username, huev1alpha1.BridgeIDKey: sim.BridgeID()},
	})).To(Succeed())
	g.Expect(k8s.Create(ctx, &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "home"},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.URL(), PollInterval: &metav1.Duration{Duration: time.Second},
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretNS, Name: "hue-home"}},
	})).To(Succeed())
	for _, bulb := range []string{"hallway", "kitchen", "porch"} {
		createLight(t, k8s, bulb, 100)
	}
	for _, bulb := range []string{"hallway", "kitchen", "porch"} {
		eventuallyBulb(t, sim, bulb, true, 100)
		eventuallyReady(t, k8s, bulb)
	}

	// 1. Watches dropped and connections refused. Meanwhile, straight to the
	// API server: an edit, a new HueLight and a deletion.
	proxy.Cut()
	cut := time.Now()
	setBrightness(t, k8s, "hallway", 150)
	createLight(t, k8s, "attic", 80)
	g.Expect(k8s.Delete(ctx, light("porch"))).To(Succeed())
	// The outage lasts some seconds, and until the manager has been turned
	// away a few times, so it has noticed and is backing off.
	outlast(t, cut, 8*time.Second, proxy.TurnedAway, 5)
	g.Expect(bulbState(t, sim, "hallway").Bri).To(Equal(100), "the manager saw the edit while cut off: is the proxy its only way in?")
	proxy.Restore()

	eventuallyBulb(t, sim, "hallway", true, 150)
	eventuallyBulb(t, sim, "attic", true, 80)
	eventuallyBulb(t, sim, "porch", false, 0)
	eventuallyGone(t, k8s, light("porch"))
	for _, bulb := range []string{"hallway", "attic"} {
		eventuallyReady(t, k8s, bulb)
	}

	// 2. The kube-apiserver process stops and starts again (same port,
	// certificates and etcd). The manager's connections are dropped first:
	// a stopping API server waits for open watches to end (up to its
	// request timeout, a minute) before it exits. While it is down, the
	// manager's reconnects reach nothing.
	apiServer := env.ControlPlane.GetAPIServer()
	proxy.Cut()
	stopped := time.Now()
	g.Expect(apiServer.Stop()).To(Succeed())
	t.Logf("the API server took %s to stop", time.Since(stopped).Round(time.Millisecond))
	proxy.Restore()
	outlast(t, stopped, 8*time.Second, proxy.FailedDials, 3)
	started := time.Now()
	g.Expect(apiServer.Start()).To(Succeed())
	t.Logf("the API server took %s to start again", time.Since(started).Round(time.Millisecond))

	// After the restart: a new HueLight and an edit.
	createLight(t, k8s, "den", 60)
	setBrightness(t, k8s, "kitchen", 200)
	eventuallyBulb(t, sim, "den", true, 60)
	eventuallyBulb(t, sim, "kitchen", true, 200)
	for _, bulb := range []string{"den", "kitchen"} {
		eventuallyReady(t, k8s, bulb)
	}

	// 3. The restarted API server's watches dropped once more, to be sure
	// the manager still re-lists from it: a change during the cut, another
	// after.
	proxy.Cut()
	cut = time.Now()
	setBrightness(t, k8s, "attic", 30)
	turnedAway := proxy.TurnedAway()
	outlast(t, cut, 5*time.Second, func() int { return proxy.TurnedAway() - turnedAway }, 5)
	proxy.Restore()
	createLight(t, k8s, "garage", 120)
	eventuallyBulb(t, sim, "attic", true, 30)
	eventuallyBulb(t, sim, "garage", true, 120)
	for _, bulb := range []string{"attic", "garage", "hallway", "kitchen", "den"} {
		eventuallyReady(t, k8s, bulb)
	}

	// The manager lived through it: still running, and no Reconcile
	// panicked (controller-runtime recovers those and only logs them).
	select {
	case err := <-managerDone:
		t.Fatalf("the manager stopped during the test: %v", err)
	default:
	}
	for _, sign := range []string{"Observed a panic", "[recovered]", "goroutine "} {
		g.Expect(logs.String()).NotTo(ContainSubstring(sign), "the manager panicked")
	}
}

// outlast keeps an outage going until it has lasted at least minimum since
// start and the manager has met it at least attempts times (count).
func outlast(t *testing.T, start time.Time, minimum time.Duration, count func() int, attempts int) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		return time.Since(start) >= minimum && count() >= attempts
	}, timeout, poll).Should(BeTrue(), "the manager met the outage fewer than %d times: is it still trying?", attempts)
	t.Logf("outage over after %s; the manager met it %d times", time.Since(start).Round(time.Millisecond), count())
}

// startAPIServer runs envtest with Tether's CRDs and a certificate directory
// of the test's own: envtest regenerates certificates in a directory it made
// itself when the API server restarts, which would lock every client out.
// It returns the API server's host:port.
func startAPIServer(t *testing.T) (*envtest.Environment, string) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	s, err := api.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
	}
	// Generous start and stop limits: the restart happens mid-test on a
	// machine that may be busy with other tests.
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: t.TempDir(),
		StartTimeout: time.Minute, StopTimeout: time.Minute}
	if _, err := env.Start(); err != nil {
		_ = env.Stop()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return env, env.ControlPlane.GetAPIServer().SecureServing.ListenAddr.HostPort()
}

// startManager runs every controller against the API server through the
// proxy at proxyAddr. The channel receives Start's result if it returns.
func startManager(t *testing.T, env *envtest.Environment, proxyAddr string) <-chan error {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Host = "https://" + proxyAddr
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	settings := controllers.DefaultConfig()
	settings.HueBridgePollInterval = time.Second
	if err := controllers.SetupAll(mgr, settings); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return done
}

func light(bulb string) *huev1alpha1.HueLight {
	return &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: room, Name: bulb + "-light"}}
}

func createLight(t *testing.T, c client.Client, bulb string, bri int32) {
	t.Helper()
	l := light(bulb)
	l.Spec = huev1alpha1.HueLightSpec{Name: bulb, Brightness: ptr.To(bri)}
	NewWithT(t).Expect(c.Create(context.Background(), l)).To(Succeed())
}

func setBrightness(t *testing.T, c client.Client, bulb string, bri int32) {
	t.Helper()
	l := light(bulb)
	g := NewWithT(t)
	g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(l), l)).To(Succeed())
	patch := client.MergeFrom(l.DeepCopy())
	l.Spec.Brightness = ptr.To(bri)
	g.Expect(c.Patch(context.Background(), l, patch)).To(Succeed())
}

func bulbState(t *testing.T, sim *huesim.Server, bulb string) huesim.LightState {
	t.Helper()
	l, ok := sim.Bridge.LightByName(bulb)
	if !ok {
		t.Fatalf("no bulb %s on the simulator", bulb)
	}
	return l.State
}

func eventuallyBulb(t *testing.T, sim *huesim.Server, bulb string, on bool, bri int) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		st := bulbState(t, sim, bulb)
		g.Expect(st.On).To(Equal(on))
		if on {
			g.Expect(st.Bri).To(Equal(bri))
		}
	}, timeout, poll).Should(Succeed(), "bulb %s never reached on=%v bri=%d", bulb, on, bri)
}

// eventuallyReady waits for Ready=True at the HueLight's current generation.
func eventuallyReady(t *testing.T, c client.Client, bulb string) {
	t.Helper()
	l := light(bulb)
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(l), l)).To(Succeed())
		var ready *metav1.Condition
		for i, cond := range l.Managed().Conditions {
			if cond.Type == commonv1alpha1.Ready {
				ready = &l.Managed().Conditions[i]
			}
		}
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.ObservedGeneration).To(Equal(l.Generation))
	}, timeout, poll).Should(Succeed(), "HueLight %s never became Ready at its current generation", l.Name)
}

func eventuallyGone(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	}, timeout, poll).Should(BeTrue(), "%s was never let go", obj.GetName())
}

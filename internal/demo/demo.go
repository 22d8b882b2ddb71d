// Package demo brings up everything the conference demo needs on one laptop:
// a real Kubernetes API server (the envtest binaries), Tether's CRDs, AWS's
// DynamoDB Local, the Hue bridge simulator with named lights already paired,
// and the operator itself, all in this process or its children. The demo
// binary (cmd/demo) and the end-to-end test use the same Start.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tether-dev/tether/api"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
)

// Options choose what the demo runs against.
type Options struct {
	// StateDir holds the kubeconfig and the demo's pid file.
	StateDir string
	// AssetsDir holds kube-apiserver, etcd and kubectl (bin/k8s/...).
	AssetsDir string
	// Lights are the simulator's bulbs, and Models their model ids
	// (huesim.Models; a bulb left out is huesim.DefaultModel).
	Lights []string
	Models map[string]string
	// HueBridge, when set, is a real bridge's address: no simulator is
	// started and the operator pairs with it (press its link button).
	HueBridge string
	// RealAWS uses the AWS default credential chain and region instead of
	// DynamoDB Local.
	RealAWS bool
	// WebAddr is where the simulator's page listens ("" for none).
	WebAddr string
	// MetricsAddr is the operator's metrics endpoint ("0" for none).
	MetricsAddr string
	// Progress receives one line per step.
	Progress io.Writer
}

// DefaultLights are the bulbs of the talk's house, and DefaultModels the
// mix of products a real house has: colour bulbs of two gamuts, a colour
// lamp without colour temperature, a white-ambiance bulb, a white bulb and
// a lantern on a smart plug. The hallway's is the one that plays effects
// (candle, fire, ...: CLIP v2 only), an LCA001, which the simulator gives
// the LCT015's gamut and numbers and the effects (huesim/effects.go).
var (
	DefaultLights = []string{"hallway", "kitchen", "desk", "living-room", "porch", "bedroom"}
	DefaultModels = map[string]string{
		"hallway": "LCA001", "kitchen": "LTW001", "desk": "LWB010",
		"living-room": "LLC010", "porch": "LOM001", "bedroom": "LCT001",
	}
)

// DefaultRooms are the rooms of the talk's house, as the Hue app made them
// on the bridge (the HueGroup samples adopt the living room by name).
var DefaultRooms = map[string][]string{
	"Entrance":    {"hallway", "porch"},
	"Kitchen":     {"kitchen", "desk"},
	"Living room": {"living-room", "bedroom"},
}

// Demo is a running demo.
type Demo struct {
	WebURL      string
	Kubeconfig  string
	Kubectl     string
	BridgeURL   string
	ControlURL  string
	DynamoDBURL string
	Client      client.Client
	Bridge      *huesim.Server
	DynamoDB    *ddbtest.Server
	StartupTime time.Duration
	// PageConfig is the page's read-only identity (PageUser), for tests.
	PageConfig *rest.Config

	stops []func()
	env   *envtest.Environment
}

// Namespace of the talk's HueLight: the room.
const talkNamespace = "entrance"

// Start brings everything up; on error it stops what it started.
func Start(ctx context.Context, opts Options) (d *Demo, err error) {
	began := time.Now()
	d = &Demo{}
	started := d // the early returns below set d to nil
	defer func() {
		if err != nil {
			started.Stop()
			d = nil
		}
	}()
	opts = withDefaults(opts)
	say := func(format string, args ...any) { fmt.Fprintf(opts.Progress, "  "+format+"\n", args...) }
	if err := os.MkdirAll(opts.StateDir, 0o755); err != nil {
		return nil, err
	}

	say("starting the Kubernetes API server and etcd")
	cfg, kubeconfig, err := d.startControlPlane(opts)
	if err != nil {
		return nil, err
	}
	d.Kubeconfig = kubeconfig
	d.Kubectl = filepath.Join(opts.AssetsDir, "kubectl")

	if !opts.RealAWS {
		say("starting DynamoDB Local (AWS's own, on Java)")
		if err := d.startDynamoDBLocal(); err != nil {
			return nil, err
		}
	}

	if opts.HueBridge == "" {
		say("starting the Hue bridge simulator with lights %v", describeLights(opts))
		if err := d.startBridgeSimulator(opts); err != nil {
			return nil, err
		}
	} else {
		d.BridgeURL = opts.HueBridge
	}
	if err := d.declareBridge(ctx, opts); err != nil {
		return nil, err
	}

	if d.Bridge != nil && opts.WebAddr != "" {
		say("serving the live page: the bulbs, the cluster's objects and events, the tables")
		if err := d.serveWeb(ctx, opts); err != nil {
			return nil, err
		}
	}

	say("starting the operator")
	if err := d.startOperator(ctx, cfg, opts); err != nil {
		return nil, err
	}
	if err := d.writeEnvFile(opts); err != nil {
		return nil, err
	}
	d.StartupTime = time.Since(began)
	return d, nil
}

func withDefaults(o Options) Options {
	if o.StateDir == "" {
		o.StateDir = filepath.Join(os.TempDir(), "tether-demo")
	}
	if len(o.Lights) == 0 {
		o.Lights, o.Models = DefaultLights, DefaultModels
	}
	if o.MetricsAddr == "" {
		o.MetricsAddr = "0"
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// Stop stops everything Start started, newest first.
func (d *Demo) Stop() {
	for i := len(d.stops) - 1; i >= 0; i-- {
		d.stops[i]()
	}
	d.stops = nil
}

func (d *Demo) onStop(f func()) { d.stops = append(d.stops, f) }

// startControlPlane runs kube-apiserver and etcd, installs the CRDs and
// writes an admin kubeconfig for kubectl.
func (d *Demo) startControlPlane(opts Options) (*rest.Config, string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, "", err
	}
	s, err := api.NewScheme()
	if err != nil {
		return nil, "", err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: opts.AssetsDir,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, "", fmt.Errorf("starting the API server (binaries in %s): %w", opts.AssetsDir, err)
	}
	d.onStop(func() { _ = env.Stop() })

	admin, err := env.AddUser(envtest.User{Name: "demo-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, "", err
	}
	raw, err := admin.KubeConfig()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(opts.StateDir, "kubeconfig")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return nil, "", err
	}
	d.onStop(func() { _ = os.Remove(path) })

	d.env = env
	d.Client, err = client.New(cfg, client.Options{Scheme: s})
	return cfg, path, err
}

func (d *Demo) startDynamoDBLocal() error {
	srv, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return err
	}
	d.onStop(srv.Stop)
	d.DynamoDB = srv
	d.DynamoDBURL = srv.URL
	// The operator reaches it through the SDK's own endpoint variables.
	for k, v := range srv.Env() {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// demoUsername is the simulator's pre-paired user; it is a demo value, not
// a secret, and still goes only into the Secret.
const demoUsername = "tether-demo-user-0000000000000000"

func (d *Demo) startBridgeSimulator(opts Options) error {
	srv, err := huesim.Start(huesim.Options{Lights: opts.Lights, Models: opts.Models, Usernames: []string{demoUsername}}, "127.0.0.1:0")
	if err != nil {
		return err
	}
	d.onStop(srv.Close)
	d.Bridge = srv
	// The demo's bridge speaks CLIP v2, as modern bridges do: HTTPS
	// checked against the simulator's CA (the caBundle below), changes
	// pushed by its event stream.
	d.BridgeURL = srv.TLSURL()
	addRooms(srv, DefaultRooms)
	control, stopControl, err := srv.ServeControl("127.0.0.1:0")
	if err != nil {
		return err
	}
	d.onStop(stopControl)
	d.ControlURL = "http://" + control
	return nil
}

// serveWeb serves the page the audience looks at: the bulbs live with the
// objects that drive them, the controller's events, and the tables as
// DynamoDB reports them. It starts before the operator, so the timeline
// misses nothing the operator does.
func (d *Demo) serveWeb(ctx context.Context, opts Options) error {
	s, err := api.NewScheme()
	if err != nil {
		return err
	}
	pageCfg, err := d.pageIdentity(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	d.onStop(cancel)
	changed := newNotifier()
	tl := newTimeline(changed)
	cluster, err := startClusterView(ctx, pageCfg, s, tl, changed)
	if err != nil {
		return err
	}
	watchHandChanges(ctx, d.Bridge, tl)
	addr, stop, err := servePage(opts.WebAddr, &page{bridge: d.Bridge, cluster: cluster, timeline: tl, changed: changed})
	if err != nil {
		return fmt.Errorf("serving the page on %s: %w", opts.WebAddr, err)
	}
	d.onStop(stop)
	d.WebURL = "http://" + addr + "/"
	return nil
}

// writeEnvFile leaves what a second terminal (and hack/demo-script.sh)
// needs: the kubeconfig, the matching kubectl and the simulator's controls.
func (d *Demo) writeEnvFile(opts Options) error {
	path := filepath.Join(opts.StateDir, "demo.env")
	content := fmt.Sprintf("export KUBECONFIG=%q\nexport PATH=%q:\"$PATH\"\nexport HUESIM_CONTROL=%q\n",
		d.Kubeconfig, filepath.Dir(d.Kubectl), d.ControlURL)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	d.onStop(func() { _ = os.Remove(path) })
	return nil
}

// declareBridge creates the HueBridge object and, for the simulator, its
// credentials Secret (a real bridge is paired by the operator instead), in
// the namespace the operator keeps credentials in, as installed.
func (d *Demo) declareBridge(ctx context.Context, opts Options) error {
	ref := huev1alpha1.SecretReference{Namespace: controllers.InstallNamespace, Name: "hue-bridge-credentials"}
	if err := d.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ref.Namespace}}); err != nil {
		return err
	}
	if opts.HueBridge == "" {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
			StringData: map[string]string{huev1alpha1.CredentialsKey: demoUsername, huev1alpha1.BridgeIDKey: d.Bridge.BridgeID()},
		}
		if err := d.Client.Create(ctx, secret); err != nil {
			return err
		}
	}
	if err := d.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: talkNamespace}}); err != nil {
		return err
	}
	bridge := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "home"},
		Spec:       huev1alpha1.HueBridgeSpec{Address: d.BridgeURL, CredentialsSecretRef: ref},
	}
	if d.Bridge != nil {
		bridge.Spec.APIVersion, bridge.Spec.CABundle = huev1alpha1.APIV2, string(d.Bridge.CACertPEM())
	}
	return d.Client.Create(ctx, bridge)
}

// demoConfig is the operator's defaults, but with tables compared with
// DynamoDB every 15 s instead of 2 min, so a change in the console is put
// back while the audience watches, and, as for one team on one account
// (DynamoDB Local), the operator's own identity for every namespace.
func demoConfig() controllers.Config {
	cfg := controllers.DefaultConfig()
	cfg.DynamoDBTablePollInterval = 15 * time.Second
	cfg.AWSRequireAccount = false
	return cfg
}

// startOperator runs the manager in this process, as `make run` would.
func (d *Demo) startOperator(ctx context.Context, cfg *rest.Config, opts Options) error {
	s, err := api.NewScheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 s,
		Metrics:                metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress: "0",
		// One process may start the demo more than once (its tests do);
		// each start has a manager of its own with the same controllers.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return err
	}
	if err := controllers.SetupAll(mgr, demoConfig()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	d.onStop(func() {
		cancel()
		<-done
	})
	select {
	case err := <-done:
		return errors.Join(errors.New("the operator stopped at startup"), err)
	case <-time.After(100 * time.Millisecond):
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("the operator's cache did not sync")
	}
	return nil
}

// describeLights lists the bulbs with their models, for the progress line.
func describeLights(o Options) []string {
	out := make([]string, 0, len(o.Lights))
	for _, name := range o.Lights {
		model := o.Models[name]
		if model == "" {
			model = huesim.DefaultModel
		}
		out = append(out, fmt.Sprintf("%s (%s, %s)", name, model, huesim.Models[model].Type))
	}
	return out
}

// addRooms creates the rooms whose lights all are on the simulator.
func addRooms(srv *huesim.Server, rooms map[string][]string) {
	names := make([]string, 0, len(rooms))
	for name := range rooms {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var ids []string
		for _, light := range rooms[name] {
			if l, ok := srv.LightByName(light); ok {
				ids = append(ids, l.ID)
			}
		}
		if len(ids) == len(rooms[name]) {
			srv.AddGroup(name, ids...)
		}
	}
}

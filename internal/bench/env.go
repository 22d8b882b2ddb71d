package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
)

// env is one run's world: the API server, DynamoDB Local behind the counting
// fault proxy, four simulated bridges and the operator in its own process.
type env struct {
	opts Options
	// runDir holds this world's kubeconfig and operator log.
	runDir string

	cfg    *rest.Config
	c      client.Client
	cache  cache.Cache
	ddb    *ddbtest.Server
	proxy  *faultproxy.Proxy
	raw    *awsdynamodb.Client // straight to DynamoDB Local: acts behind Tether's back
	op     *Operator
	stops  []func()
	bridge map[string]*huesim.Server
	// outage is the counting proxy in front of the "outage" bridge: it sees
	// every call, including those it refuses while the bridge is offline.
	outage *countingProxy
}

// Bridge names; each HueBridge object and simulator share the name.
const (
	bridgeLatency = "latency"
	bridgeAlpha   = "alpha"
	bridgeBeta    = "beta"
	bridgeOutage  = "outage"
)

const (
	secretsNS  = "tether-system"
	tablesNS   = "tables"
	latencyNS  = "bench-latency"
	outageNS   = "bench-outage"
	benchUser  = "tether-bench-user-0123456789abcdef"
	labelSet   = "bench.tether.dev/set"
	roomCount  = 5
	roomPrefix = "room-"
	// maxLatencyLights is how many lights the latency figure uses (fewer
	// in a small run).
	maxLatencyLights = 10
)

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (e *env) onStop(f func()) { e.stops = append(e.stops, f) }

// stop stops everything, newest first.
func (e *env) stop() {
	for i := len(e.stops) - 1; i >= 0; i-- {
		e.stops[i]()
	}
	e.stops = nil
}

// startEnv brings the world up; on error it stops what it started.
func startEnv(ctx context.Context, opts Options, managerBin string, runDir string) (_ *env, err error) {
	e := &env{opts: opts, bridge: map[string]*huesim.Server{}}
	// e, not the named result: a failed step returns nil, and what it
	// started must still stop.
	defer func() {
		if err != nil {
			e.stop()
		}
	}()
	logf := opts.logf
	logf("starting the API server, DynamoDB Local and the bridge simulators")
	kubeconfig, err := e.startControlPlane(runDir)
	if err != nil {
		return nil, err
	}
	if err := e.startDynamoDB(ctx); err != nil {
		return nil, err
	}
	sc := opts.Scale
	if err := e.startBridges(sc); err != nil {
		return nil, err
	}
	if err := e.declare(ctx); err != nil {
		return nil, err
	}
	logf("starting the operator (separate process)")
	e.op, err = startOperator(ctx, managerBin, kubeconfig, e.proxy.URL(), opts, filepath.Join(runDir, "operator.log"))
	if err != nil {
		return nil, err
	}
	e.onStop(e.op.Stop)
	// Figure 1 measures a create as a user's apply meets it: with the
	// operator's controllers started and its bridges connected. Its first
	// create otherwise waited about a second for the operator's informers
	// to sync, which starts after its metrics answer.
	logf("waiting for the operator's HueBridges to be Ready")
	if err := e.waitBridgesReady(ctx, len(e.bridge)); err != nil {
		return nil, fmt.Errorf("the HueBridges did not become Ready: %w", err)
	}
	return e, nil
}

func (e *env) startControlPlane(runDir string) (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	assets, err := testenv.AssetsDir()
	if err != nil {
		return "", err
	}
	s, err := newScheme()
	if err != nil {
		return "", err
	}
	cp := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
	}
	cfg, err := cp.Start()
	if err != nil {
		return "", fmt.Errorf("starting the API server (binaries in %s): %w", assets, err)
	}
	e.onStop(func() { _ = cp.Stop() })
	admin, err := cp.AddUser(envtest.User{Name: "bench-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", err
	}
	raw, err := admin.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(runDir, "kubeconfig")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return "", err
	}
	// The harness's own client is not rate limited on its side, so that
	// "applied at once" means at once.
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	e.cfg = cfg
	if e.c, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return "", err
	}
	// An informer cache: the harness polls readiness of thousands of objects
	// without listing them from the API server every 100 ms.
	e.cache, err = cache.New(cfg, cache.Options{Scheme: s})
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.cache.Start(cctx); close(done) }()
	e.onStop(func() { cancel(); <-done })
	for _, obj := range []client.Object{&huev1alpha1.HueLight{}, &awsv1alpha1.DynamoDBTable{}} {
		if _, err := e.cache.GetInformer(cctx, obj); err != nil {
			return "", err
		}
	}
	if !e.cache.WaitForCacheSync(cctx) {
		return "", errors.New("the harness's cache did not sync")
	}
	return path, nil
}

func (e *env) startDynamoDB(ctx context.Context) error {
	srv, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return err
	}
	e.onStop(srv.Stop)
	e.ddb = srv
	e.proxy, err = faultproxy.New(srv.URL, 6)
	if err != nil {
		return err
	}
	if _, err := e.proxy.Listen("127.0.0.1:0"); err != nil {
		return err
	}
	e.onStop(func() { _ = e.proxy.Close() })
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("tethertest", "tethertest", "")))
	if err != nil {
		return err
	}
	e.raw = awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	return nil
}

func bulbNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return out
}

func (e *env) startBridges(sc Scale) error {
	sizes := map[string]int{
		bridgeLatency: latencyLights(sc),
		bridgeAlpha:   sc.ConvergeLights,
		bridgeBeta:    sc.WatchLights - sc.ConvergeLights,
		bridgeOutage:  sc.OutageLights,
	}
	for name, n := range sizes {
		sim, err := huesim.Start(huesim.Options{Lights: bulbNames(name, n), Usernames: []string{benchUser}}, "127.0.0.1:0")
		if err != nil {
			return err
		}
		e.onStop(sim.Close)
		e.bridge[name] = sim
	}
	p, err := newCountingProxy(e.bridge[bridgeOutage].URL())
	if err != nil {
		return err
	}
	e.onStop(p.close)
	e.outage = p
	return nil
}

// declare creates the namespaces, the bridges' Secrets and HueBridges.
func (e *env) declare(ctx context.Context) error {
	nss := []string{secretsNS, tablesNS, latencyNS, outageNS}
	for i := range roomCount {
		nss = append(nss, fmt.Sprintf("%s%d", roomPrefix, i))
	}
	for _, ns := range nss {
		if err := e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	for name, sim := range e.bridge {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: name + "-credentials"},
			Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())},
		}
		if err := e.c.Create(ctx, secret); err != nil {
			return err
		}
		addr := sim.Addr()
		if name == bridgeOutage {
			addr = e.outage.addr
		}
		b := &huev1alpha1.HueBridge{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: huev1alpha1.HueBridgeSpec{
				Address:              addr,
				CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name},
				// Figures 1 to 6 keep measuring light and group commands,
				// comparable with earlier reports; figure 10 measures
				// temporary scenes.
				TemporaryScenes: ptr.To(false),
			},
		}
		if err := e.c.Create(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// createAll creates objects from a few goroutines, as `kubectl apply -f
// dir/` with many files would, and returns the first error.
func (e *env) createAll(ctx context.Context, objs []client.Object) error {
	return Parallel(len(objs), 16, func(i int) error { return e.c.Create(ctx, objs[i]) })
}

// Parallel runs f(0..n-1) on workers goroutines and returns the first error.
func Parallel(n, workers int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for range min(workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// WaitUntil polls cond every interval until it is true or timeout passes.
func WaitUntil(ctx context.Context, timeout, interval time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

func latencyLights(sc Scale) int { return min(maxLatencyLights, max(2, sc.LatencyChanges/4)) }

// waitBridgesReady waits until n HueBridges are Ready.
func (e *env) waitBridgesReady(ctx context.Context, n int) error {
	return WaitUntil(ctx, time.Minute, 100*time.Millisecond, func() (bool, error) {
		var list huev1alpha1.HueBridgeList
		if err := e.c.List(ctx, &list); err != nil {
			return false, err
		}
		ready := 0
		for _, b := range list.Items {
			if meta.IsStatusConditionTrue(b.Status.Conditions, "Ready") {
				ready++
			}
		}
		return ready == n, nil
	})
}

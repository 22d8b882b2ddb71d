package faults

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

const (
	timeout = 45 * time.Second
	poll    = 100 * time.Millisecond
	// bridgePoll is every test bridge's poll interval.
	bridgePoll = time.Second
	secretsNS  = "tether-system"
	ns         = "faults"
	// awsSecretKey is the canary the secrets test looks for: the SDK signs
	// with it, nothing may print it. DynamoDB Local accepts letters and
	// digits only.
	awsSecretKey = "TetherCanarySecretKey7Qw3ZxB9"
	awsAccessKey = "TetherCanaryAccessKey4Hn8"
)

var (
	k8s client.Client
	// logs is everything the manager logged, at every verbosity.
	logs testenv.SyncBuffer
	// ddbFront stands between the manager and DynamoDB Local.
	ddbFront *frontDoor
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	env, err := testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	local, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer local.Stop()
	ddbFront, err = newFrontDoor(local.URL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ddbFront.Close()
	for k, v := range ddbtest.EnvFor(ddbFront.URL) {
		_ = os.Setenv(k, v)
	}
	_ = os.Setenv("AWS_ACCESS_KEY_ID", awsAccessKey)
	_ = os.Setenv("AWS_SECRET_ACCESS_KEY", awsSecretKey)

	logger := zap.New(zap.WriteTo(&logs), zap.UseDevMode(true), zap.Level(zapcore.Level(-10)))
	ctrl.SetLogger(logger)
	mgr, err := env.NewManager()
	if err == nil {
		// The kinds send their events as the binary's SetupAll has them.
		mgr, err = reconciler.WithEventsOneAtATime(mgr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	registry := hue.NewRegistry(mgr.GetClient(), mgr.GetAPIReader(), hue.Settings{
		PollInterval: bridgePoll, CommandsPerSecond: 10, CallTimeout: 2 * time.Second,
		CredentialsNamespaces: []string{secretsNS},
	}, mgr.GetLogger().WithName("hue"))
	setups := []func() error{
		func() error { return mgr.Add(registry) },
		func() error { return controllers.SetupHueLight(mgr, registry) },
		func() error { return controllers.SetupHueBridge(mgr, registry) },
		func() error {
			_, err := controllers.SetupDynamoDBTable(mgr, time.Hour, dynamodb.Options{SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond})
			return err
		},
	}
	for _, setup := range setups {
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, n := range []string{secretsNS, ns} {
		if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil && !apierrors.IsAlreadyExists(err) {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "manager log (last 20000 bytes):\n%s\n", tail(logs.String(), 20000))
	}
	return code
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// frontDoor forwards to DynamoDB Local, or answers with a fault instead;
// it counts the calls that reach it.
type frontDoor struct {
	*httptest.Server
	calls atomic.Int64
	mu    sync.Mutex
	fault http.HandlerFunc // nil: forward
}

func newFrontDoor(target string) (*frontDoor, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	forward := httputil.NewSingleHostReverseProxy(u)
	f := &frontDoor{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		f.mu.Lock()
		fault := f.fault
		f.mu.Unlock()
		if fault != nil {
			fault(w, r)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	return f, nil
}

func (f *frontDoor) answer(fault http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault = fault
}

package reconciler

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/tether-dev/tether/internal/testenv"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
)

// The package's integration tests share one real API server and one manager
// running the generic reconciler over the in-memory widget provider
// (widget_provider_test.go): the Widget kind (internal/testkind) stands for
// any kind.
var (
	env     *testenv.Env
	widgets *widgetProvider
)

// testPollInterval is long so that only the tests that ask for resyncs (by
// annotation) see them, and call counts stay exact.
const testPollInterval = time.Hour

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	var err error
	env, err = testenv.Start(testv1alpha1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	mgr, err := newManager()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	widgets = newWidgetProvider()
	r := New(mgr.GetClient(), mgr.GetEventRecorder("tether-test"), "widget",
		func() *testv1alpha1.Widget { return &testv1alpha1.Widget{} }, widgets,
		Options{PollInterval: testPollInterval, Customize: func(b *builder.Builder) *builder.Builder {
			return b.WatchesRawSource(source.Channel(widgets.wakes, &handler.EnqueueRequestForObject{}))
		}})
	if err := r.SetupWithManager(mgr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	return m.Run()
}

// newManager is a manager of the test API server whose recorders send one
// event at a time, as the binary's do.
func newManager(tune ...func(*ctrl.Options)) (ctrl.Manager, error) {
	mgr, err := env.NewManager(tune...)
	if err != nil {
		return nil, err
	}
	return WithEventsOneAtATime(mgr)
}

// sync runs one pass over obj and applies what it decided, as Reconcile
// does but without reading or writing the object: tests drive the pass
// on an object in memory.
func (r *Reconciler[O]) sync(ctx context.Context, req ctrl.Request, obj O) (ctrl.Result, error) {
	return r.apply(ctx, req, obj, r.pass(ctx, req, obj))
}

// Package ctrltest holds what the controllers' integration test packages
// (controllers/awstest, controllers/huetest) share: the test binary's API
// server and its managers, the DynamoDB suite (DynamoDB Local behind a
// counting proxy, STS's model and the DynamoDBTable controller), and the
// GitOps health check their helpers apply to every object they wait for.
// The two packages are split so that go test runs them at the same time,
// each with an API server of its own; it holds test support only.
package ctrltest

import (
	"fmt"
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/reconciler"
)

var (
	env *testenv.Env
	// atEnd holds what shared fixtures (DynamoDB Local, simulators) must
	// stop once every test has run.
	atEnd []func()
)

// Main runs a test package's tests on one real API server with every
// Tether kind, which it sets *shared to, and stops the server and what
// AtEnd registered once they have run. It returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(ctrltest.Main(m, &env)) }
func Main(m *testing.M, shared **testenv.Env) int {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	var err error
	env, err = testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	defer func() {
		for i := len(atEnd) - 1; i >= 0; i-- {
			atEnd[i]()
		}
	}()
	*shared = env
	return m.Run()
}

// AtEnd registers stop to run once every test has run (the last registered
// first), before the API server stops.
func AtEnd(stop func()) { atEnd = append(atEnd, stop) }

// NewManager is a manager of the test API server whose recorders send one
// event at a time, as SetupAll's do.
func NewManager(tune ...func(*ctrl.Options)) (ctrl.Manager, error) {
	mgr, err := env.NewManager(tune...)
	if err != nil {
		return nil, err
	}
	return reconciler.WithEventsOneAtATime(mgr)
}

package controllers

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

// The package's integration tests share one real API server; each kind's
// tests start the managers and fixtures they need once (startDynamoDB,
// startHue).
var (
	env *testenv.Env
	// atSuiteEnd holds what shared fixtures (DynamoDB Local, simulators)
	// must stop once every test has run.
	atSuiteEnd []func()
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	var err error
	env, err = testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	defer func() {
		for i := len(atSuiteEnd) - 1; i >= 0; i-- {
			atSuiteEnd[i]()
		}
	}()
	return m.Run()
}

// newManager is a manager of the test API server whose recorders send one
// event at a time, as SetupAll's do.
func newManager(tune ...func(*ctrl.Options)) (ctrl.Manager, error) {
	mgr, err := env.NewManager(tune...)
	if err != nil {
		return nil, err
	}
	return reconciler.WithEventsOneAtATime(mgr)
}

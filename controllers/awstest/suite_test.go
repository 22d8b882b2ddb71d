package awstest

import (
	"os"
	"testing"

	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/testenv"
)

// The package's integration tests share one real API server of their own
// (internal/ctrltest), so that go test runs them beside controllers/huetest's.
var env *testenv.Env

func TestMain(m *testing.M) { os.Exit(ctrltest.Main(m, &env)) }

package serving

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/testenv"
)

// TestReadinessWaitsForTheCaches runs the manager as a user the API server
// refuses to list anything to: its informers cannot fill their caches, and
// /readyz must say not ready (a Ping check would say ready). Once the user
// is granted access the caches sync and /readyz says ready.
func TestReadinessWaitsForTheCaches(t *testing.T) {
	g := NewWithT(t)
	env, err := testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })

	const user = "readiness-test"
	cfg, err := env.AddUser(user)
	g.Expect(err).NotTo(HaveOccurred())
	var refusedLists atomic.Int32
	cfg.WrapTransport = countRefusedLists(&refusedLists)

	probeAddr := testenv.FreeAddr(t)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: probeAddr,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(controllers.SetupAll(mgr, controllers.DefaultConfig())).To(Succeed())
	g.Expect(AddHealthChecks(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })

	probe := func(path string) int {
		resp, err := http.Get("http://" + probeAddr + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	g.Eventually(func() int { return probe("/healthz") }, time.Minute, 100*time.Millisecond).Should(Equal(http.StatusOK),
		"the process is alive, whatever its caches")
	g.Eventually(refusedLists.Load, time.Minute, 100*time.Millisecond).Should(BeNumerically(">", 0),
		"the informers never tried to fill their caches")
	g.Expect(probe("/readyz")).To(Equal(http.StatusInternalServerError),
		"ready although the API server refused to fill the caches")

	g.Expect(env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
	g.Eventually(func() int { return probe("/readyz") }, 90*time.Second, 200*time.Millisecond).Should(Equal(http.StatusOK),
		"never ready after the caches could sync")
}

// countRefusedLists counts list requests for Tether's kinds that the API
// server refuses (403).
func countRefusedLists(n *atomic.Int32) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && resp.StatusCode == http.StatusForbidden && req.Method == http.MethodGet &&
				strings.Contains(req.URL.Path, ".tether.dev/") {
				n.Add(1)
			}
			return resp, err
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

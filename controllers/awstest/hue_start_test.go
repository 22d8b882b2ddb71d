package awstest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/hue"
)

// TestHueControllersWaitForAHueObject runs every controller (SetupAll) on an
// API server of its own that holds no Hue object: the manager watches the
// Hue kinds' metadata only, and reads none of them in full. Once a HueLight
// is created, the Hue controllers start and reconcile it (its HueBridge does
// not exist, which its status says).
func TestHueControllersWaitForAHueObject(t *testing.T) {
	g := NewWithT(t)
	own, err := testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = own.Stop() })

	reads := &hueReads{}
	cfg := rest.CopyConfig(own.Config)
	cfg.WrapTransport = reads.wrap
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 own.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(controllers.SetupAll(mgr, controllers.DefaultConfig())).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	g.Eventually(reads.metadataKinds, time.Minute, 100*time.Millisecond).Should(
		ConsistOf("huebridges", "huelights", "huegroups", "huescenes"), "the manager does not watch for the first Hue object")
	g.Expect(reads.fullKinds()).To(BeEmpty(), "Hue objects read in full while the cluster holds none")

	light := &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "porch"},
		Spec:       huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "nowhere"}, Name: "porch"},
	}
	g.Expect(own.Client.Create(ctx, light)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(own.Client.Get(ctx, client.ObjectKeyFromObject(light), light)).To(Succeed())
		ready := meta.FindStatusCondition(light.Status.Conditions, commonv1alpha1.Ready)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(hue.ReasonBridgeNotFound))
	}, time.Minute, 100*time.Millisecond).Should(Succeed(), "the first HueLight was not reconciled")
	g.Expect(reads.fullKinds()).To(ContainElements("huelights", "huebridges"))
}

// hueReads records the Hue kinds the manager lists or watches, in full or
// as metadata only (controller-runtime asks for PartialObjectMetadata in
// the Accept header).
type hueReads struct {
	mu             sync.Mutex
	metadata, full map[string]bool
}

func (h *hueReads) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		const prefix = "/apis/" + "hue.tether.dev/v1alpha1/"
		if i := strings.Index(req.URL.Path, prefix); i >= 0 && req.Method == http.MethodGet {
			kind := strings.Split(req.URL.Path[i+len(prefix):], "/")[0]
			h.mu.Lock()
			if h.metadata == nil {
				h.metadata, h.full = map[string]bool{}, map[string]bool{}
			}
			if strings.Contains(req.Header.Get("Accept"), "as=PartialObjectMetadata") {
				h.metadata[kind] = true
			} else {
				h.full[kind] = true
			}
			h.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (h *hueReads) metadataKinds() []string {
	return h.kinds(func() map[string]bool { return h.metadata })
}
func (h *hueReads) fullKinds() []string { return h.kinds(func() map[string]bool { return h.full }) }

func (h *hueReads) kinds(which func() map[string]bool) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for k := range which() {
		out = append(out, k)
	}
	return out
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

package installtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/tether-dev/tether/api"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/hue"
)

// TestCredentialsStayInTheOperatorsNamespace runs the manager as the install
// manifest's ServiceAccount (Secret access only in tether-system) with three
// HueBridges:
//   - one naming a Secret in another namespace is refused with a condition
//     that says so, and the manager never even asks for that Secret;
//   - one naming a Secret in tether-system that someone else made, without a
//     username, is refused: Tether neither pairs (the bridge is asked for no
//     user) nor writes into it;
//   - one naming a Secret that does not exist pairs and creates it, marked
//     as Tether's.
func TestCredentialsStayInTheOperatorsNamespace(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	g := NewWithT(t)
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: s}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	testenv.ApplyInstallManifest(t, env, root, assets)
	k8s, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())

	// Every request the manager makes for a Secret, by path.
	var secretRequests requestLog
	cfg := rest.CopyConfig(admin)
	cfg.WrapTransport = secretRequests.wrap

	// The Secrets someone else made: one elsewhere with a username, one
	// here without.
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hue-foreign"},
		StringData: map[string]string{huev1alpha1.CredentialsKey: "someone-elses-user"}}
	handMade := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hue-hand-made"},
		StringData: map[string]string{"note": "made by hand"}}
	for _, sec := range []*corev1.Secret{foreign, handMade} {
		g.Expect(k8s.Create(ctx, sec)).To(Succeed())
	}

	bridges := map[string]*pairingCounter{}
	for _, name := range []string{"foreign", "hand-made", "fresh"} {
		bridges[name] = startCountingBridge(t)
		bridges[name].sim.PressLinkButton()
	}
	startManagerAs(t, cfg, s)
	for name, b := range bridges {
		ns := namespace
		if name == "foreign" {
			ns = foreign.Namespace
		}
		g.Expect(k8s.Create(ctx, &huev1alpha1.HueBridge{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: huev1alpha1.HueBridgeSpec{Address: b.url,
				CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: ns, Name: "hue-" + name}},
		})).To(Succeed())
	}

	// The fresh bridge pairs: Tether creates its Secret and marks it.
	g.Eventually(func(g Gomega) {
		var sec corev1.Secret
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "hue-fresh"}, &sec)).To(Succeed())
		g.Expect(sec.Data).To(HaveKey(huev1alpha1.CredentialsKey))
		g.Expect(sec.Labels).To(HaveKeyWithValue(hue.OwnerLabel, "fresh"))
	}, time.Minute, 200*time.Millisecond).Should(Succeed(), "the fresh HueBridge never paired")

	g.Eventually(readyCondition(k8s, "foreign"), time.Minute, 200*time.Millisecond).Should(And(
		HaveField("Status", metav1.ConditionFalse),
		HaveField("Reason", hue.ReasonCredentialsNamespaceNotAllowed),
		HaveField("Message", ContainSubstring(`"tether-system"`))))
	g.Eventually(readyCondition(k8s, "hand-made"), time.Minute, 200*time.Millisecond).Should(And(
		HaveField("Status", metav1.ConditionFalse),
		HaveField("Reason", hue.ReasonCredentialsSecretNotOwned),
		HaveField("Message", ContainSubstring("did not create"))))

	g.Expect(secretRequests.paths()).NotTo(ContainElement(ContainSubstring("/namespaces/default/")),
		"the manager asked for a Secret outside its namespace")
	var after corev1.Secret
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(handMade), &after)).To(Succeed())
	g.Expect(after.Data).NotTo(HaveKey(huev1alpha1.CredentialsKey), "Tether wrote into a Secret it did not create")
	g.Expect(after.Labels).NotTo(HaveKey(hue.OwnerLabel))
	g.Expect(bridges["hand-made"].pairings.Load()).To(BeZero(), "Tether paired although it could not keep the username")
	g.Expect(bridges["foreign"].pairings.Load()).To(BeZero(), "Tether paired a bridge whose Secret it may not use")
	g.Expect(bridges["fresh"].pairings.Load()).To(BeEquivalentTo(1))
}

func readyCondition(c client.Client, bridge string) func(Gomega) metav1.Condition {
	return func(g Gomega) metav1.Condition {
		var b huev1alpha1.HueBridge
		g.Expect(c.Get(context.Background(), client.ObjectKey{Name: bridge}, &b)).To(Succeed())
		for _, cond := range b.Status.Conditions {
			if cond.Type == commonv1alpha1.Ready {
				return cond
			}
		}
		return metav1.Condition{}
	}
}

// pairingCounter is a simulated bridge that counts pairing requests
// (POST /api).
type pairingCounter struct {
	sim      *huesim.Bridge
	url      string
	pairings atomic.Int32
}

func startCountingBridge(t *testing.T) *pairingCounter {
	t.Helper()
	p := &pairingCounter{sim: huesim.New(huesim.Options{Lights: []string{"lamp"}})}
	h := p.sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/api" {
			p.pairings.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// requestLog records the Secret requests made through a config.
type requestLog struct {
	mu  sync.Mutex
	all []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.Contains(r.URL.Path, "/secrets") {
			l.mu.Lock()
			l.all = append(l.all, r.Method+" "+r.URL.Path)
			l.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

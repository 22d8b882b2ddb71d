package serving

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestMetricsFilterReviewsTokenAndAccess puts the metrics filter in front of
// a handler and asks through it with the real API server's tokens: only a
// bearer token the API server authenticates, of a user it authorises for GET
// /metrics, gets through; the others are refused with 401 or 403. Answers are
// remembered: scraping again costs the API server no review.
func TestMetricsFilterReviewsTokenAndAccess(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())

	const ns = "monitoring"
	g.Expect(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	for _, sa := range []string{"reader", "nosy"} {
		g.Expect(cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	}
	g.Expect(cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	g.Expect(cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "reader-reads-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "reader"}}}, metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	tokenOf := func(sa string) string {
		tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		return tok.Status.Token
	}
	reader, nosy := tokenOf("reader"), tokenOf("nosy")

	// The filter's own client counts the reviews it asks for.
	var reviews atomic.Int32
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if strings.HasSuffix(req.URL.Path, "/tokenreviews") || strings.HasSuffix(req.URL.Path, "/subjectaccessreviews") {
				reviews.Add(1)
			}
			return rt.RoundTrip(req)
		})
	}
	hc, err := rest.HTTPClientFor(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	filter, err := WithTokenAndAccessReview(cfg, hc)
	g.Expect(err).NotTo(HaveOccurred())
	h, err := filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics")) }))
	g.Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	get := func(path, authorization string) int {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		g.Expect(err).NotTo(HaveOccurred())
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		return resp.StatusCode
	}

	for _, tc := range []struct {
		name, path, authorization string
		want                      int
	}{
		{"no token", "/metrics", "", http.StatusUnauthorized},
		{"not a bearer token", "/metrics", "Basic " + reader, http.StatusUnauthorized},
		{"an empty bearer token", "/metrics", "Bearer ", http.StatusUnauthorized},
		{"a token the API server does not know", "/metrics", "Bearer not-a-token", http.StatusUnauthorized},
		{"a ServiceAccount not allowed to read metrics", "/metrics", "Bearer " + nosy, http.StatusForbidden},
		{"the metrics reader", "/metrics", "Bearer " + reader, http.StatusOK},
		{"the metrics reader, scheme in lower case", "/metrics", "bearer " + reader, http.StatusOK},
		{"the metrics reader, another path", "/debug", "Bearer " + reader, http.StatusForbidden},
	} {
		g.Expect(get(tc.path, tc.authorization)).To(Equal(tc.want), tc.name)
	}

	asked := reviews.Load()
	for range 3 {
		g.Expect(get("/metrics", "Bearer "+reader)).To(Equal(http.StatusOK))
		g.Expect(get("/metrics", "Bearer "+nosy)).To(Equal(http.StatusForbidden))
	}
	g.Expect(reviews.Load()).To(Equal(asked), "scraping again asked the API server again")
}

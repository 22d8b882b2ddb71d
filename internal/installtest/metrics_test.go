package installtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tether-dev/tether/api"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/testenv"
)

// TestMetricsNeedAnAuthorizedToken runs the manager binary as the install
// manifest deploys it (its container args, its ServiceAccount's token, so its
// RBAC) and scrapes its metrics endpoint: plain HTTP and a request without a
// token are refused, a token whose ServiceAccount may not GET /metrics is
// refused, and one bound to the manifest's metrics-reader ClusterRole is
// answered. Its readiness probe answers once its caches have synced. Go's
// profiles are off in the install and served where --pprof-bind-address
// says.
func TestMetricsNeedAnAuthorizedToken(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())

	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	testenv.ApplyInstallManifest(t, env, root, assets)
	cs, err := kubernetes.NewForConfig(admin)
	g.Expect(err).NotTo(HaveOccurred())

	// The manifest's metrics plumbing must agree with itself: the Service
	// reaches the container port the manager binds its metrics to.
	manifest := testenv.ReadManifest(t, testenv.RenderInstall(t, root))
	args := managerArgs(t, manifest)
	metricsPort := metricsServicePort(t, manifest)
	g.Expect(args).To(ContainElement("--metrics-bind-address=:"+metricsPort),
		"the metrics Service targets port %s, the manager binds elsewhere", metricsPort)
	g.Expect(args).NotTo(ContainElement(HavePrefix("--metrics-secure=")), "the install turns secure metrics off")

	// The scrapers: one bound to metrics-reader, one bound to nothing.
	g.Expect(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{})).Error().NotTo(HaveOccurred())
	for _, name := range []string{"prometheus", "nosy"} {
		_, err := cs.CoreV1().ServiceAccounts("monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-reads-tether-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "tether-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "monitoring", Name: "prometheus"}},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())

	// The manager binary, with the manifest's args; only the listen
	// addresses move to free loopback ports, and the lease namespace (in a
	// pod, its own) is named.
	g.Expect(args).NotTo(ContainElement(HavePrefix("--pprof-bind-address=")), "the install serves profiles")
	bin := buildManager(t)
	metricsAddr, probeAddr, pprofAddr := testenv.FreeAddr(t), testenv.FreeAddr(t), testenv.FreeAddr(t)
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--metrics-bind-address="):
			args[i] = "--metrics-bind-address=" + metricsAddr
		case strings.HasPrefix(a, "--health-probe-bind-address="):
			args[i] = "--health-probe-bind-address=" + probeAddr
		}
	}
	// Profiles, off in the install, served where a user asks for them.
	args = append(args, "--leader-election-namespace="+namespace, "--pprof-bind-address="+pprofAddr)
	kubeconfig := tokenKubeconfig(t, admin, token(t, cs, namespace, "tether-controller-manager"))
	runManager(t, bin, kubeconfig, args)

	g.Eventually(func() int { return status(http.DefaultClient, "http://"+probeAddr+"/readyz", "") },
		2*time.Minute, 200*time.Millisecond).Should(Equal(http.StatusOK), "the manager never became ready")

	pprof := "http://" + pprofAddr + "/debug/pprof/"
	g.Eventually(func() int { return status(http.DefaultClient, pprof, "") }, time.Minute, 200*time.Millisecond).
		Should(Equal(http.StatusOK), "--pprof-bind-address serves Go's profiles")
	g.Expect(body(t, http.DefaultClient, pprof, "")).To(ContainSubstring("heap"))

	https := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		// The manager's certificate is self-signed unless --metrics-cert-path
		// names one; what matters here is who may read.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec
	}}
	url := "https://" + metricsAddr + "/metrics"
	// The metrics server starts beside the probes, not before them.
	g.Eventually(func() int { return status(https, url, "") }, time.Minute, 200*time.Millisecond).Should(
		Equal(http.StatusUnauthorized), "a scrape without a token")
	g.Expect(status(https, url, token(t, cs, "monitoring", "nosy"))).To(Equal(http.StatusForbidden),
		"a scrape by a ServiceAccount not bound to metrics-reader")
	g.Expect(status(&http.Client{Timeout: 10 * time.Second}, "http://"+metricsAddr+"/metrics", "")).NotTo(Equal(http.StatusOK),
		"metrics answered over plain HTTP")
	prometheus := token(t, cs, "monitoring", "prometheus")
	g.Expect(status(https, url, prometheus)).To(Equal(http.StatusOK), "a scrape by metrics-reader")
	// The controllers register their metrics once their informers have
	// synced, which on a loaded machine comes after the first scrape.
	g.Eventually(func() string { return body(t, https, url, prometheus) }, time.Minute, 200*time.Millisecond).Should(
		ContainSubstring("controller_runtime_reconcile_total"), "a scrape by metrics-reader shows the controllers' metrics")

	// The object metrics read the manager's own cache in place (its
	// informers' stores, reconciler/objectmetrics.go): a HueBridge the
	// cache holds is counted, with its Ready.
	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	bridge := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-nowhere"},
		Spec: huev1alpha1.HueBridgeSpec{Address: "127.0.0.1:1",
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: namespace, Name: "metrics-nowhere"}},
	}
	g.Expect(c.Create(ctx, bridge)).To(Succeed())
	g.Eventually(func() string { return body(t, https, url, prometheus) }, time.Minute, 200*time.Millisecond).Should(And(
		ContainSubstring(`tether_hue_bridge_ready{bridge="metrics-nowhere"`),
		MatchRegexp(`tether_objects\{condition="Ready",kind="huebridge",namespace="",reason="[A-Za-z]+",status="False"\} 1`)),
		"the scrape counts the HueBridge the manager's cache holds")
}

// managerArgs are the manager container's args in the manifest.
func managerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			c := c.(map[string]any)
			if c["name"] != "manager" {
				continue
			}
			args, _, _ := unstructured.NestedStringSlice(c, "args")
			return args
		}
	}
	t.Fatal("the manifest has no manager container")
	return nil
}

// metricsServicePort resolves the metrics Service's target port to the
// container port number it names.
func metricsServicePort(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var target string
	for _, o := range objs {
		if o.GetKind() == "Service" && o.GetName() == "tether-controller-manager-metrics" {
			ports, _, _ := unstructured.NestedSlice(o.Object, "spec", "ports")
			if len(ports) != 1 {
				t.Fatalf("the metrics Service has %d ports", len(ports))
			}
			target = fmt.Sprint(ports[0].(map[string]any)["targetPort"])
		}
	}
	if target == "" {
		t.Fatal("the manifest has no tether-controller-manager-metrics Service")
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			ports, _, _ := unstructured.NestedSlice(c.(map[string]any), "ports")
			for _, p := range ports {
				p := p.(map[string]any)
				if p["name"] == target || fmt.Sprint(p["containerPort"]) == target {
					return fmt.Sprint(p["containerPort"])
				}
			}
		}
	}
	t.Fatalf("no container port %q for the metrics Service", target)
	return ""
}

func token(t *testing.T, cs kubernetes.Interface, ns, sa string) string {
	t.Helper()
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token for %s/%s: %v", ns, sa, err)
	}
	return tok.Status.Token
}

// tokenKubeconfig is what a pod gets: the API server, its CA, a token.
func tokenKubeconfig(t *testing.T, admin *rest.Config, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	cfg.AuthInfos["manager"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["manager"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "manager"}
	cfg.CurrentContext = "manager"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runManager builds and starts cmd/manager; it is stopped when the test ends.
// buildManager builds the manager binary. Tests build it before they pick
// free ports (testenv.FreeAddr), so that the build's minute on a loaded machine is
// not a minute in which another process may take them.
func buildManager(t *testing.T) string {
	t.Helper()
	bin, err := bench.BuildManager(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// runManager runs the manager binary bin with args until the test ends.
func runManager(t *testing.T, bin, kubeconfig string, args []string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logFile.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("the manager's log:\n%s", bench.Tail(logPath, 40))
		}
	})
}

func status(c *http.Client, url, token string) int {
	resp, err := get(c, url, token)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func body(t *testing.T, c *http.Client, url, token string) string {
	t.Helper()
	resp, err := get(c, url, token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func get(c *http.Client, url, token string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return c.Do(req)
}

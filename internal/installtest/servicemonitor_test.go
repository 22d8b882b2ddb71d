package installtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	promconfig "github.com/prometheus/common/config"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestServiceMonitorScrapesTheManager renders config/default with the
// service-monitor component, runs the manager binary with exactly the
// rendered args (its serving certificate where the component mounts the
// Secret), and scrapes it the way the Prometheus Operator configures
// Prometheus from the ServiceMonitor: Prometheus' own HTTP client
// (prometheus/common/config) with the bearer token file, the CA from the
// Secret's ca.crt and the ServiceMonitor's serverName. The scrape is
// answered; the same scrape trusting another CA, or checking another name,
// fails at the TLS handshake.
func TestServiceMonitorScrapesTheManager(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())

	// config/default with the component, as an overlay would have it.
	overlay := t.TempDir()
	rel := func(p string) string {
		r, err := filepath.Rel(overlay, filepath.Join(root, p))
		g.Expect(err).NotTo(HaveOccurred())
		return r
	}
	g.Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"+
		"resources:\n- "+rel("config/default")+"\ncomponents:\n- "+rel("config/components/service-monitor")+"\n"), 0o600)).To(Succeed())
	rendered, err := exec.Command(filepath.Join(assets, "kubectl"), "kustomize", overlay).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "%s", rendered)
	manifest := filepath.Join(t.TempDir(), "install.yaml")
	g.Expect(os.WriteFile(manifest, rendered, 0o600)).To(Succeed())
	objs := testenv.ReadManifest(t, manifest)
	var sm *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "ServiceMonitor" {
			sm = o
		}
	}
	g.Expect(sm).NotTo(BeNil(), "the component renders no ServiceMonitor")
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	g.Expect(endpoints).To(HaveLen(1))
	ep := endpoints[0].(map[string]any)
	g.Expect(ep).To(HaveKeyWithValue("scheme", "https"))
	serverName, _, _ := unstructured.NestedString(ep, "tlsConfig", "serverName")
	caKey, _, _ := unstructured.NestedString(ep, "tlsConfig", "ca", "secret", "key")
	skip, _, _ := unstructured.NestedBool(ep, "tlsConfig", "insecureSkipVerify")
	g.Expect(skip).To(BeFalse(), "the ServiceMonitor does not verify the certificate")
	g.Expect(serverName).To(Equal("tether-controller-manager-metrics.tether-system.svc"))
	g.Expect(ep).To(HaveKeyWithValue("bearerTokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token"))

	// The Secret the component mounts: a CA and a certificate for the
	// Service's name, as cert-manager would issue.
	certDir := t.TempDir()
	caPEM := writeServingCert(t, certDir, serverName)
	otherCA := t.TempDir()
	writeServingCert(t, otherCA, serverName)

	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	testenv.ApplyInstallManifest(t, env, root, assets)
	cs, err := kubernetes.NewForConfig(admin)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().ServiceAccounts("monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus"}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-reads-tether-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "tether-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "monitoring", Name: "prometheus"}},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())

	// The manager with the rendered args: only the listen addresses move to
	// loopback ports and the certificate path to the Secret's files.
	args := managerArgs(t, objs)
	g.Expect(args).To(ContainElement("--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs"))
	bin := buildManager(t)
	metricsAddr := testenv.FreeAddr(t)
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--metrics-bind-address="):
			args[i] = "--metrics-bind-address=" + metricsAddr
		case strings.HasPrefix(a, "--health-probe-bind-address="):
			args[i] = "--health-probe-bind-address=" + testenv.FreeAddr(t)
		case strings.HasPrefix(a, "--metrics-cert-path="):
			args[i] = "--metrics-cert-path=" + certDir
		}
	}
	args = append(args, "--leader-election-namespace="+namespace)
	runManager(t, bin, tokenKubeconfig(t, admin, token(t, cs, namespace, "tether-controller-manager")), args)

	// Prometheus' scrape, configured as the operator configures it from the
	// endpoint: the token file, the CA of the Secret's key, the server name.
	tokenFile := filepath.Join(t.TempDir(), "token")
	g.Expect(os.WriteFile(tokenFile, []byte(token(t, cs, "monitoring", "prometheus")), 0o600)).To(Succeed())
	g.Expect(caKey).To(Equal("ca.crt"))
	scrape := func(caFile, name string) (int, string, error) {
		cfg := promconfig.HTTPClientConfig{
			Authorization: &promconfig.Authorization{Type: "Bearer", CredentialsFile: tokenFile},
			TLSConfig:     promconfig.TLSConfig{CAFile: caFile, ServerName: name, InsecureSkipVerify: skip},
		}
		c, err := promconfig.NewClientFromConfig(cfg, "tether")
		if err != nil {
			return 0, "", err
		}
		c.Timeout = 10 * time.Second
		resp, err := c.Get("https://" + metricsAddr + "/metrics")
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	g.Eventually(func(g Gomega) {
		code, body, err := scrape(filepath.Join(certDir, caKey), serverName)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK))
		g.Expect(body).To(ContainSubstring("controller_runtime_reconcile_total"))
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed(), "Prometheus' scrape as the ServiceMonitor says")
	g.Expect(caPEM).NotTo(BeEmpty())

	_, _, err = scrape(filepath.Join(otherCA, "ca.crt"), serverName)
	g.Expect(err).To(MatchError(ContainSubstring("certificate")), "a scrape trusting another CA got through")
	_, _, err = scrape(filepath.Join(certDir, caKey), "tether-controller-manager-metrics.elsewhere.svc")
	g.Expect(err).To(MatchError(ContainSubstring("certificate")), "a scrape checking another name got through")
}

// writeServingCert writes ca.crt, tls.crt and tls.key (a CA and a serving
// certificate it signed for name) into dir, as a kubernetes.io/tls Secret
// mounted there holds them; it returns the CA's PEM.
func writeServingCert(t *testing.T, dir, name string) []byte {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := key(), key()
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(leafKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	for file, data := range map[string][]byte{
		"ca.crt":  caPEM,
		"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return caPEM
}

package installtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tether-dev/tether/api"
	"github.com/tether-dev/tether/internal/testenv"
)

// TestMakeDeploySetsTheImage runs `make deploy IMG=...` against a real API
// server and checks what it applied: the Deployment runs IMG, and every
// object of the install manifest is there.
func TestMakeDeploySetsTheImage(t *testing.T) {
	g := NewWithT(t)
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

	// A registry with a port and a nested path: the image's every part
	// must survive.
	const img = "registry.example:5000/platform/tether:v1.2.3"
	// -o manifests: `make test` has just generated them, and regenerating
	// here would rewrite files that tests in other packages are reading.
	cmd := exec.Command("make", "--no-print-directory", "-o", "manifests", "deploy",
		"IMG="+img, "KUBECTL="+filepath.Join(assets, "kubectl"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+testenv.AdminKubeconfig(t, env))
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "make deploy:\n%s", out)

	c, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	var d appsv1.Deployment
	g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: "tether-controller-manager"}, &d)).To(Succeed())
	g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", img)))

	for _, want := range testenv.ReadManifest(t, testenv.RenderInstall(t, root)) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(want.GroupVersionKind())
		g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(want), got)).To(Succeed(),
			"make deploy did not apply %s %s", want.GetKind(), want.GetName())
	}
}

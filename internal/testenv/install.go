package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ApplyInstallManifest renders the install manifest (hack/render-install.sh)
// and applies it with kubectl as a cluster admin, as a user would, then
// waits for its CRDs. The tests that run the manager with only the
// manifest's RBAC start here.
func ApplyInstallManifest(t testing.TB, env *envtest.Environment, root, assets string) {
	t.Helper()
	kubeconfig := AdminKubeconfig(t, env)
	manifest := RenderInstall(t, root)
	kubectl(t, assets, kubeconfig, "apply", "--server-side", "-f", manifest)
	kubectl(t, assets, kubeconfig, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
}

// RenderInstall writes the install manifest (what `make build-installer`
// writes, with the default image) to a temporary file and returns its path.
func RenderInstall(t testing.TB, root string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(root, "hack", "render-install.sh")).Output()
	if err != nil {
		t.Fatalf("rendering the install manifest: %v", err)
	}
	path := filepath.Join(t.TempDir(), "install.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// AdminKubeconfig writes a kubeconfig of a cluster admin (system:masters)
// of env to a temporary file and returns its path.
func AdminKubeconfig(t testing.TB, env *envtest.Environment) string {
	t.Helper()
	user, err := env.AddUser(envtest.User{Name: "install-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadManifest decodes every object of a multi-document YAML file.
func ReadManifest(t testing.TB, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, &u)
		}
	}
}

func kubectl(t testing.TB, assets, kubeconfig string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(assets, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

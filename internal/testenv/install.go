package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ApplyInstallManifest renders the install manifest (hack/render-install.sh)
// and applies it with kubectl as a cluster admin, as a user would, then
// waits for its CRDs. The tests that run the manager with only the
// manifest's RBAC start here.
func ApplyInstallManifest(t testing.TB, env *envtest.Environment, root, assets string) {
	t.Helper()
	kubeconfig := adminKubeconfig(t, env)
	manifest := renderInstall(t, root)
	kubectl(t, assets, kubeconfig, "apply", "--server-side", "-f", manifest)
	kubectl(t, assets, kubeconfig, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
}

func renderInstall(t testing.TB, root string) string {
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

func adminKubeconfig(t testing.TB, env *envtest.Environment) string {
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

func kubectl(t testing.TB, assets, kubeconfig string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(assets, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

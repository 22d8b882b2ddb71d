package charttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/tether-dev/tether/internal/testenv"
)

// crdKinds are the argocd-cm key suffixes of every CRD the chart installs
// (<group>_<Kind>): every Tether kind has a status and needs a check.
func crdKinds(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "charts", "tether", "files", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in the chart: %v", err)
	}
	var out []string
	for _, f := range files {
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
			} `json:"spec"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		out = append(out, crd.Spec.Group+"_"+crd.Spec.Names.Kind)
	}
	return out
}

// TestArgoCDHealthChecksPatchArgocdCM: the health checks come as a patch of
// argocd-cm, Argo CD's own ConfigMap (a ConfigMap elsewhere is never read):
// a kustomize component and values for Argo CD's Helm chart, each with one
// key per Tether kind holding the chart's script. The component is applied
// with kustomize to an argocd-cm as Argo CD's install has it: the keys are
// added and Argo CD's own settings stay.
func TestArgoCDHealthChecksPatchArgocdCM(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	script := readFile(t, root, "charts/tether/files/argocd/health.lua")
	want := map[string]string{}
	for _, kind := range crdKinds(t, root) {
		want["resource.customizations.health."+kind] = script
	}
	g.Expect(want).To(HaveLen(len(kindsWithStatus)))

	var patch struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	g.Expect(yaml.Unmarshal([]byte(readFile(t, root, "config/components/argocd-health/argocd-cm.yaml")), &patch)).To(Succeed())
	g.Expect(patch.Metadata.Name).To(Equal("argocd-cm"))
	g.Expect(patch.Data).To(Equal(want))

	var values struct {
		Configs struct {
			CM map[string]string `json:"cm"`
		} `json:"configs"`
	}
	g.Expect(yaml.Unmarshal([]byte(readFile(t, root, "charts/tether/files/argocd/argo-cd-values.yaml")), &values)).To(Succeed())
	g.Expect(values.Configs.CM).To(Equal(want))

	// Argo CD's install, as a user's kustomization holds it, plus the
	// component.
	dir := t.TempDir()
	// kustomize takes a component's path relative to the kustomization.
	component, err := filepath.Rel(dir, filepath.Join(root, "config", "components", "argocd-health"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(dir, "argocd-cm.yaml"), []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels:
    app.kubernetes.io/part-of: argocd
data:
  admin.enabled: "false"
`), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: argocd
resources:
- argocd-cm.yaml
components:
- `+component+"\n"), 0o600)).To(Succeed())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	out, err := exec.Command(filepath.Join(assets, "kubectl"), "kustomize", dir).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "kustomize:\n%s", out)
	var patched struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	g.Expect(yaml.Unmarshal(out, &patched)).To(Succeed())
	g.Expect(patched.Metadata.Namespace).To(Equal("argocd"))
	g.Expect(patched.Data).To(HaveKeyWithValue("admin.enabled", "false"), "the patch dropped Argo CD's own settings")
	for k, v := range want {
		g.Expect(patched.Data).To(HaveKeyWithValue(k, v))
	}
	g.Expect(strings.Count(string(out), "kind: ConfigMap")).To(Equal(1))
}

package charttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestKustomizeChangeEventsComponent: an overlay of config/default with the
// change-events component runs the manager with the operator's own change
// feed, as the chart's dynamodbChangeEvents values do.
func TestKustomizeChangeEventsComponent(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	overlay := t.TempDir()
	// kustomize takes bases by relative path only.
	rel, err := filepath.Rel(overlay, root)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(fmt.Sprintf(
		"resources: [%s/config/default]\ncomponents: [%s/config/components/change-events]\n", rel, rel)), 0o600)).To(Succeed())
	out, err := exec.Command(filepath.Join(assets, "kubectl"), "kustomize", overlay).Output()
	g.Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(overlay, "install.yaml")
	g.Expect(os.WriteFile(path, out, 0o600)).To(Succeed())
	objs := byKey(testenv.ReadManifest(t, path))
	g.Expect(container(g, objs["Deployment/tether-system/tether-controller-manager"])["args"]).To(ContainElements(
		HavePrefix("--dynamodb-change-events-queue=https://sqs."), "--dynamodb-change-events-safety-interval=30m", "--leader-elect"))
}

package release

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

// TestReleaseWorkflow lints the committed release workflow with actionlint
// (its syntax, expressions, the actions' inputs, and the shell scripts with
// shellcheck, which `make test` installs), built from its tool module
// hack/tools/actionlint, and checks it
// does what docs/releasing.md says: runs on a version tag, tests, builds
// with make release, pushes and signs the image and the chart.
func TestReleaseWorkflow(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(root, ".github", "workflows", "release.yml")
	shellcheck, err := exec.LookPath("shellcheck")
	g.Expect(err).NotTo(HaveOccurred(), "shellcheck is not installed (make lint-deps installs it)")
	bin := filepath.Join(t.TempDir(), "actionlint")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(root, "hack", "tools", "actionlint")
	out, err := build.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "building actionlint (hack/tools/actionlint):\n%s", out)
	lint := exec.Command(bin, "-shellcheck", shellcheck, "-pyflakes", "", "-no-color", path)
	lint.Dir = root
	out, err = lint.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "actionlint:\n%s", out)

	raw, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	var wf struct {
		// YAML 1.1 reads the key on as true.
		On struct {
			Push struct {
				Tags []string `json:"tags"`
			} `json:"push"`
		} `json:"true"`
		Jobs map[string]struct {
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	g.Expect(yaml.Unmarshal(raw, &wf)).To(Succeed())
	g.Expect(wf.On.Push.Tags).To(ConsistOf(HavePrefix("v[0-9]")))
	var runs []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			runs = append(runs, s.Run)
		}
	}
	script := strings.Join(runs, "\n")
	for _, want := range []string{"make test", "make release VERSION=", "push --image-refs dist/image-ref dist/image",
		`cosign sign --yes "$ref"`, "helm push", `cosign sign --yes "$CHART_REPOSITORY/tether@$digest"`} {
		g.Expect(script).To(ContainSubstring(want))
	}
}

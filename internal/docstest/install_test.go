package docstest

import (
	"regexp"
	"strings"
	"testing"
)

// TestREADMEInstallsARelease: the README's install section shows installing
// a released version with Helm (the chart from an OCI registry, at a
// version) and with the release's install.yaml, and says the same commands
// serve amd64 and arm64 nodes.
func TestREADMEInstallsARelease(t *testing.T) {
	readme := readFile(t, repoRoot(t), "README.md")
	section := regexp.MustCompile(`(?s)\n## Install a release\n(.*?)\n## `).FindStringSubmatch(readme)
	if section == nil {
		t.Fatal(`the README has no "## Install a release" section`)
	}
	var commands []string
	for _, block := range fencedBlocks(section[1], "sh") {
		commands = append(commands, block)
	}
	script := strings.Join(commands, "\n")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`helm install tether oci://\S+ --version [0-9]+\.[0-9]+\.[0-9]+`),
		regexp.MustCompile(`kubectl apply --server-side -f \S+/releases/download/v[0-9]+\.[0-9]+\.[0-9]+/install\.yaml`),
	} {
		if !want.MatchString(script) {
			t.Errorf("the README's install section shows no command matching %s", want)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !strings.Contains(section[1], arch) {
			t.Errorf("the README's install section does not say it installs on %s", arch)
		}
	}
}

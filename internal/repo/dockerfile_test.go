package repo

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileCopiesWhatTheManagerBuildsFrom: the Dockerfile builds the
// manager from the folders it copies, and no test runs a Docker engine
// here, so a package the manager comes to import from a new top-level
// folder would break `make docker-build` unseen (reconciler/ did). Every
// top-level folder of this module that `go list -deps ./cmd/manager` names
// must have its COPY line.
func TestDockerfileCopiesWhatTheManagerBuildsFrom(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimSpace(run(t, root, "go", "list", "-m"))
	deps := run(t, root, "go", "list", "-deps", "-f", "{{.ImportPath}}", "./cmd/manager")
	need := map[string]bool{}
	for _, p := range strings.Fields(deps) {
		if rest, ok := strings.CutPrefix(p, module+"/"); ok {
			need[strings.SplitN(rest, "/", 2)[0]] = true
		}
	}
	if len(need) == 0 {
		t.Fatalf("go list names no package of %s under ./cmd/manager", module)
	}
	copied := map[string]bool{}
	dockerfile := read(t, filepath.Join(root, "Dockerfile"))
	for _, m := range regexp.MustCompile(`(?m)^COPY ([\w.-]+)/ ([\w.-]+)/$`).FindAllStringSubmatch(dockerfile, -1) {
		copied[m[1]] = m[1] == m[2] // to the same place, as the import paths say
	}
	for dir := range need {
		if !copied[dir] {
			t.Errorf("the manager imports packages under %s/, which the Dockerfile does not copy (COPY %s/ %s/)", dir, dir, dir)
		}
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

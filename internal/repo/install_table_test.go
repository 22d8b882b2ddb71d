package repo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameEverythingTheMakefileInstalls keeps the table of what is
// installed from where (docs/development.md) true: every Debian package the Makefile
// installs with apt, every npm package of the committed lock's manifest,
// every tool built from the Go module proxy under hack/tools and
// controller-gen (with its version) must appear in the row of its source.
func TestDocsNameEverythingTheMakefileInstalls(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(root, "docs", "development.md"))
	makefile := read(t, filepath.Join(root, "Makefile"))
	rows := installRows(page)

	want := map[string][]string{} // source row -> names it must hold
	for _, m := range regexp.MustCompile(`apt-get install ((?:-\S+\s+)*)([^>;&|\n]+)`).FindAllStringSubmatch(makefile, -1) {
		want["Debian's packages (apt)"] = append(want["Debian's packages (apt)"], strings.Fields(m[2])...)
	}
	if len(want["Debian's packages (apt)"]) == 0 {
		t.Fatal("the Makefile installs no Debian package any more: update this test and docs/development.md")
	}

	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal([]byte(read(t, filepath.Join(root, "hack", "npm", "package.json"))), &pkg); err != nil {
		t.Fatal(err)
	}
	for name := range pkg.Dependencies {
		want["npm registry"] = append(want["npm registry"], name)
	}

	tools, err := filepath.Glob(filepath.Join(root, "hack", "tools", "*", "go.mod"))
	if err != nil || len(tools) == 0 {
		t.Fatalf("no tools under hack/tools: %v", err)
	}
	for _, mod := range tools {
		want["Go module proxy"] = append(want["Go module proxy"], filepath.Base(filepath.Dir(mod)))
	}
	cg := regexp.MustCompile(`CONTROLLER_GEN_VERSION \?= (\S+)`).FindStringSubmatch(makefile)
	if cg == nil {
		t.Fatal("no CONTROLLER_GEN_VERSION in the Makefile")
	}
	want["Go module proxy"] = append(want["Go module proxy"], "controller-gen` "+cg[1])

	for source, names := range want {
		row := strings.Join(rows[source], "\n")
		if row == "" {
			t.Errorf("docs/development.md's install table has no row for %q", source)
			continue
		}
		for _, n := range names {
			if !strings.Contains(row, n) {
				t.Errorf("docs/development.md's %q rows do not name %q", source, n)
			}
		}
	}
	for source := range rows {
		if _, ok := want[source]; !ok {
			t.Errorf("docs/development.md's install table names %q, which the Makefile does not install from", source)
		}
	}
}

// installRows are the rows of the page's "| From | What | ..." table, by
// their first cell.
func installRows(page string) map[string][]string {
	rows := map[string][]string{}
	in := false
	for _, line := range strings.Split(page, "\n") {
		switch {
		case strings.HasPrefix(line, "| From |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			cells := strings.Split(line, "|")
			source := strings.TrimSpace(cells[1])
			rows[source] = append(rows[source], line)
		default:
			in = false
		}
	}
	return rows
}

func read(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

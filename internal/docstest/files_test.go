package docstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/repo"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readFile(t *testing.T, root, path string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

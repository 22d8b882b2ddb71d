package browsertest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// ArtifactsEnv names the folder where tests keep screenshots; CI sets it
// and uploads the folder. Unset, artifacts go to the test's temp dir.
const ArtifactsEnv = "TETHER_ARTIFACTS_DIR"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SaveArtifact writes data as <test name>-<name> in the artifacts folder
// and logs where, so a failing run says where to look.
func SaveArtifact(t testing.TB, name string, data []byte) string {
	t.Helper()
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(t.Name(), "_")+"-"+name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("artifact: %s", path)
	return path
}

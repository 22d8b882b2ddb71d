// Package repo finds the repository's root, where the test tools, the npm
// packages and the CRDs live, from any package's working directory.
package repo

import (
	"errors"
	"os"
	"path/filepath"
)

// Root walks up from the working directory to the folder with go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

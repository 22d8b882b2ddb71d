package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheLinkerCanDropUnusedMethods builds the manager and fails if any
// function it links looks methods up by name through reflection
// (text/template, reflect.Value.MethodByName with a name not known at
// build time): the linker then keeps every exported method of every type
// in the binary, which makes the manager larger and its start-up heavier in
// memory (bench figure 16). The linker marks such functions
// <ReflectMethod> in its -dumpdep output.
func TestTheLinkerCanDropUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("links the manager")
	}
	out, err := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "manager"), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, tail(out))
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		// "caller -> callee", either side marked when it is such a function.
		for _, side := range strings.Split(strings.TrimSpace(line), " -> ") {
			if fn, ok := strings.CutSuffix(side, " <ReflectMethod>"); ok && !seen[fn] {
				seen[fn] = true
				t.Errorf("%s looks methods up by name: the linker keeps every exported method in the binary", fn)
			}
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

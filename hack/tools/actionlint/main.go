// Command actionlint is rhysd/actionlint's own command, built from the Go
// module proxy in a module of its own: its YAML library's version and the
// one Prometheus' packages need in Tether's module cannot be the same.
// internal/release's TestReleaseWorkflow builds and runs it.
package main

import (
	"os"

	"github.com/rhysd/actionlint"
)

func main() {
	cmd := actionlint.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cmd.Main(os.Args))
}

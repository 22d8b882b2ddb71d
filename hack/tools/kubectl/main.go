// Command kubectl is upstream kubectl at the API server's minor version, built
// from the Go module proxy for the demo and the end-to-end tests (the
// machine's own kubectl may be too old for a 1.37 server).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}

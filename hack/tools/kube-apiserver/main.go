// Command kube-apiserver is the upstream Kubernetes API server, built from the
// Go module proxy so that envtest runs a real API server on machines that
// cannot download release binaries.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}

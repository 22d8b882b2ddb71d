// Command release writes a release of Tether to a folder (`make release
// VERSION=x.y.z` writes dist/): the manager image for linux/amd64 and
// linux/arm64 as an OCI image layout, the SBOM, the packaged chart,
// install.yaml and SHA256SUMS. It needs no Docker engine and pushes
// nothing (internal/release says what each file is).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tether-dev/tether/internal/release"
)

func main() {
	var opts release.Options
	flag.StringVar(&opts.Version, "version", "", "The release, SemVer without a leading v (1.2.3).")
	flag.StringVar(&opts.Out, "out", "dist", "Folder to write the release to (replaced).")
	flag.StringVar(&opts.ImageRepository, "image-repository", "tether",
		"Repository the image will be pushed to, without tag (e.g. registry.example/platform/tether): install.yaml and the chart name it.")
	flag.StringVar(&opts.CABundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of CA certificates the image carries.")
	flag.StringVar(&opts.Root, "root", ".", "The repository's root.")
	flag.Parse()
	opts.Log = os.Stderr
	res, err := release.Build(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: image index %s (%s:%s), %s, %s, %s\n", opts.Out, res.IndexDigest, opts.ImageRepository, opts.Version,
		res.Chart, res.Install, res.SBOM)
}

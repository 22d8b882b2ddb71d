// Package release builds what `make release VERSION=x.y.z` writes to dist/:
// the manager image for every platform as one OCI image index (built with
// go-containerregistry, no Docker engine), an SPDX SBOM of the Go modules
// linked into the manager, the Helm chart packaged at the version,
// install.yaml, and SHA256SUMS over them. Nothing here pushes: the release
// workflow (.github/workflows/release.yml) pushes and signs what this wrote.
package release

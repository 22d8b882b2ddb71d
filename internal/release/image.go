package release

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image is the Dockerfile's: scratch, the CA bundle (AWS and HTTPS
// bridges are reached over TLS), the static manager binary, a non-root user.
const (
	// User is the distroless "nonroot" user and group, as in the Dockerfile;
	// the chart's pod securityContext (runAsNonRoot) needs a numeric one.
	User = "65532:65532"
	// Entrypoint is where the binary lies in the image.
	Entrypoint = "/manager"
	// CABundlePath is where Go's crypto/x509 looks first on Linux.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
)

// Platforms are the platforms every release is built for: amd64 servers and
// arm64 (Graviton, a Raspberry Pi running k3s).
var Platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// ImageFiles is what one platform's image holds.
type ImageFiles struct {
	Platform v1.Platform
	// Binary is the manager built for Platform (CGO_ENABLED=0).
	Binary string
	// CABundle is the PEM bundle to put at CABundlePath.
	CABundle string
}

// image builds one platform's image: one layer on nothing (scratch), OCI
// media types, every time stamp at created so that the same inputs give the
// same digest.
func image(f ImageFiles, version, revision string, created time.Time) (v1.Image, error) {
	layerTar, err := layerTar(f, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "tether release: CA bundle and manager binary"}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = f.Platform.OS, f.Platform.Architecture, f.Platform.Variant
	cfg.Created = v1.Time{Time: created}
	cfg.Config.User = User
	cfg.Config.Entrypoint = []string{Entrypoint}
	cfg.Config.Env = []string{"SSL_CERT_FILE=" + CABundlePath}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "tether",
		"org.opencontainers.image.description": "Tether, a Kubernetes operator for Philips Hue lights and Amazon DynamoDB tables",
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.revision":    revision,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	return mutate.ConfigFile(img, cfg)
}

// layerTar is the layer's file system: the CA bundle and the binary, owned
// by root and readable by all (the image runs as User), with their folders.
func layerTar(f ImageFiles, modTime time.Time) ([]byte, error) {
	binary, err := os.ReadFile(f.Binary)
	if err != nil {
		return nil, err
	}
	bundle, err := os.ReadFile(f.CABundle)
	if err != nil {
		return nil, fmt.Errorf("the CA bundle: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, dir := range []string{"etc/", "etc/ssl/", "etc/ssl/certs/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: modTime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, file := range []struct {
		name string
		mode int64
		data []byte
	}{{CABundlePath[1:], 0o644, bundle}, {Entrypoint[1:], 0o755, binary}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: file.name, Mode: file.mode, Size: int64(len(file.data)),
			ModTime: modTime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(file.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteImageIndex builds an image per platform, puts them in one OCI image
// index and writes it as an OCI image layout at dir, tagged version (the
// org.opencontainers.image.ref.name annotation tools such as skopeo and
// crane read). It returns the index's digest, the one to sign.
func WriteImageIndex(dir string, files []ImageFiles, version, revision string, created time.Time) (v1.Hash, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, f := range files {
		img, err := image(f, version, revision, created)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("the %s image: %w", f.Platform, err)
		}
		p := f.Platform
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, err
	}
	path, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := path.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

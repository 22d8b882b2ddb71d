package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Options say what to release.
type Options struct {
	// Root is the repository's root.
	Root string
	// Version is the release, SemVer without a leading v (1.2.3, 1.3.0-rc.1).
	Version string
	// Out is the folder to write to (dist/); what it held is replaced.
	Out string
	// ImageRepository is where the image will be pushed, without the tag:
	// install.yaml and the chart's values name it. No registry is written
	// into the repository; the release workflow passes its own.
	ImageRepository string
	// CABundle is the PEM bundle the image carries (the build machine's,
	// as the Dockerfile takes its build stage's).
	CABundle string
	// Log receives progress lines.
	Log io.Writer
}

// Result is what a release wrote.
type Result struct {
	// ImageLayout is the OCI image layout holding the image index.
	ImageLayout string
	// IndexDigest is the image index's digest.
	IndexDigest v1.Hash
	// Binaries are the manager binaries by platform (linux/amd64, ...).
	Binaries map[string]string
	SBOM     string
	Chart    string
	Install  string
	Sums     string
}

// Build writes the release to opts.Out.
func Build(opts Options) (*Result, error) {
	if _, err := semver.StrictNewVersion(opts.Version); err != nil {
		return nil, fmt.Errorf("VERSION %q is not SemVer (x.y.z, no leading v): %w", opts.Version, err)
	}
	if opts.ImageRepository == "" {
		return nil, fmt.Errorf("no image repository")
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if err := os.RemoveAll(opts.Out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	created := buildTime(opts.Root)
	revision := strings.TrimSpace(gitOutput(opts.Root, "rev-parse", "HEAD"))
	res := &Result{Binaries: map[string]string{}}

	var files []ImageFiles
	for _, p := range Platforms {
		bin := filepath.Join(opts.Out, "manager-"+p.OS+"-"+p.Architecture)
		fmt.Fprintf(opts.Log, ">> building the manager for %s\n", p)
		if err := buildManager(opts.Root, bin, opts.Version, p); err != nil {
			return nil, err
		}
		res.Binaries[p.String()] = bin
		files = append(files, ImageFiles{Platform: p, Binary: bin, CABundle: opts.CABundle})
	}

	fmt.Fprintf(opts.Log, ">> writing the image index\n")
	res.ImageLayout = filepath.Join(opts.Out, "image")
	digest, err := WriteImageIndex(res.ImageLayout, files, opts.Version, revision, created)
	if err != nil {
		return nil, err
	}
	res.IndexDigest = digest

	res.SBOM = filepath.Join(opts.Out, "tether-"+opts.Version+".spdx.json")
	var sbom bytes.Buffer
	if err := WriteSBOM(&sbom, files[0].Binary, opts.Version, created); err != nil {
		return nil, err
	}
	if err := os.WriteFile(res.SBOM, sbom.Bytes(), 0o644); err != nil {
		return nil, err
	}

	fmt.Fprintf(opts.Log, ">> packaging the chart\n")
	res.Chart, err = PackageChart(filepath.Join(opts.Root, "charts", "tether"), opts.Out, opts.Version, opts.ImageRepository, created)
	if err != nil {
		return nil, fmt.Errorf("packaging the chart: %w", err)
	}

	fmt.Fprintf(opts.Log, ">> rendering install.yaml\n")
	res.Install = filepath.Join(opts.Out, "install.yaml")
	render := exec.Command(filepath.Join(opts.Root, "hack", "render-install.sh"))
	render.Env = append(os.Environ(), "IMG="+opts.ImageRepository+":"+opts.Version)
	render.Stderr = opts.Log
	manifest, err := render.Output()
	if err != nil {
		return nil, fmt.Errorf("rendering install.yaml: %w", err)
	}
	if err := os.WriteFile(res.Install, manifest, 0o644); err != nil {
		return nil, err
	}

	res.Sums = filepath.Join(opts.Out, "SHA256SUMS")
	sums := []string{res.SBOM, res.Chart, res.Install, filepath.Join(res.ImageLayout, "index.json")}
	for _, b := range res.Binaries {
		sums = append(sums, b)
	}
	if err := WriteChecksums(res.Sums, opts.Out, sums); err != nil {
		return nil, err
	}
	return res, nil
}

// buildManager cross-compiles the manager as the Dockerfile does (static,
// trimmed paths, no symbol table) with its version stamped.
func buildManager(root, out, version string, p v1.Platform) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -X main.version="+version, "-o", out, "./cmd/manager")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", p, err, out)
	}
	return nil
}

// buildTime is the time stamp of every file and of the image: the
// SOURCE_DATE_EPOCH convention (reproducible-builds.org) when set, else the
// last commit's time, so that a release built twice from one commit is the
// same image.
func buildTime(root string) time.Time {
	for _, s := range []string{os.Getenv("SOURCE_DATE_EPOCH"), strings.TrimSpace(gitOutput(root, "log", "-1", "--format=%ct"))} {
		if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(secs, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

func gitOutput(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, _ := cmd.Output()
	return string(out)
}

// WriteChecksums writes `sha256sum` lines for files, named relative to
// base, so that `sha256sum -c SHA256SUMS` in base checks them.
func WriteChecksums(path, base string, files []string) error {
	sort.Strings(files)
	var out strings.Builder
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(base, f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&out, "%s  %s\n", hex.EncodeToString(sum[:]), rel)
	}
	return os.WriteFile(path, []byte(out.String()), 0o644)
}

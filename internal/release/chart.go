package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// repositoryLine is values.yaml's image repository, the one line
// PackageChart changes (the image tag defaults to appVersion already).
var repositoryLine = regexp.MustCompile(`(?m)^  repository: tether$`)

// PackageChart packages the chart at chartDir as `helm package --version
// --app-version` does, into outDir, with the image repository set to
// repository: version and appVersion are the release's, so the image tag
// defaults to it. values.yaml keeps its comments (the one line is replaced
// in the file as written). Every entry's time stamp is modTime, so that the
// same chart packaged twice is the same file. It returns the package's path.
func PackageChart(chartDir, outDir, version, repository string, modTime time.Time) (string, error) {
	c, err := loader.Load(chartDir)
	if err != nil {
		return "", err
	}
	c.Metadata.Version = version
	c.Metadata.AppVersion = version
	if err := setRepository(c, repository); err != nil {
		return "", err
	}
	if err := c.Validate(); err != nil {
		return "", err
	}
	path, err := chartutil.Save(c, outDir)
	if err != nil {
		return "", err
	}
	return path, restamp(path, modTime)
}

// restamp rewrites a .tgz with every time stamp at modTime: Helm stamps
// the package's entries with the time of packaging.
func restamp(path string, modTime time.Time) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.ModTime = modTime
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		h.ModTime, h.AccessTime, h.ChangeTime = modTime, time.Time{}, time.Time{}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

func setRepository(c *chart.Chart, repository string) error {
	for _, f := range c.Raw {
		if f.Name != chartutil.ValuesfileName {
			continue
		}
		if n := len(repositoryLine.FindAll(f.Data, -1)); n != 1 {
			return fmt.Errorf("values.yaml: expected one %q line, found %d", repositoryLine, n)
		}
		f.Data = repositoryLine.ReplaceAllLiteral(f.Data, []byte("  repository: "+repository))
		values, err := chartutil.ReadValues(f.Data)
		if err != nil {
			return err
		}
		c.Values = values
		return nil
	}
	return fmt.Errorf("the chart has no values.yaml")
}

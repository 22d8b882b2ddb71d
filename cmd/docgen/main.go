// Command docgen writes the generated parts of the documentation (`make
// docs`): the chart README's values table from values.yaml
// (internal/chartdoc), and the API reference docs/reference from the CRDs
// (internal/crdref). Tests fail while a generated part is stale.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/chartdoc"
	"github.com/tether-dev/tether/internal/crdref"
)

func main() {
	for _, gen := range []func(string) error{chartREADME, reference} {
		if err := gen("."); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
}

// reference rewrites docs/reference: a page per kind and the index.
func reference(root string) error {
	crds, err := crdref.Read(root)
	if err != nil {
		return err
	}
	pages, index, err := crdref.Pages(crds)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "docs", "reference")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(index), 0o644); err != nil {
		return err
	}
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(dir, p.File), []byte(p.Markdown), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// chartREADME regenerates the values table of charts/tether/README.md.
func chartREADME(root string) error {
	values, err := os.ReadFile(filepath.Join(root, "charts", "tether", "values.yaml"))
	if err != nil {
		return err
	}
	table, err := chartdoc.Table(values)
	if err != nil {
		return fmt.Errorf("charts/tether/values.yaml: %w", err)
	}
	path := filepath.Join(root, "charts", "tether", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := chartdoc.Replace(string(readme), table)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(updated), 0o644)
}

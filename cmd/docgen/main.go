// Command docgen writes the generated parts of the documentation (`make
// docs`): the chart README's values table from values.yaml
// (internal/chartdoc). Tests fail while a generated part is stale.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/chartdoc"
)

func main() {
	if err := chartREADME("."); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
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

package crdref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/repo"
)

// TestReferenceIsCurrent: docs/reference is what make docs generates from
// the CRDs now: one page per kind, none left from a kind that is gone, and
// every field of every kind on its page.
func TestReferenceIsCurrent(t *testing.T) {
	g := NewWithT(t)
	root, err := repo.Root()
	g.Expect(err).NotTo(HaveOccurred())
	crds, err := Read(root)
	g.Expect(err).NotTo(HaveOccurred())
	pages, index, err := Pages(crds)
	g.Expect(err).NotTo(HaveOccurred())
	dir := filepath.Join(root, "docs", "reference")
	want := map[string]string{"README.md": index}
	for _, p := range pages {
		want[p.File] = p.Markdown
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).To(HaveLen(len(want)), "docs/reference has pages of no kind, or lacks some: run make docs")
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		g.Expect(err).NotTo(HaveOccurred(), "run make docs")
		g.Expect(string(got)).To(Equal(content), "docs/reference/%s is stale: run make docs", name)
	}
	// A field the table must show, from each part of a kind.
	for _, p := range pages {
		if p.Kind == "DynamoDBTable" {
			for _, field := range []string{"`spec.sseSpecification.kmsMasterKeyId`", "`spec.keySchema[].attributeName`", "`status.tableArn`"} {
				g.Expect(p.Markdown).To(ContainSubstring("| " + field + " |"))
			}
			g.Expect(strings.Count(p.Markdown, "| `spec.")).To(BeNumerically(">", 50))
		}
	}
}

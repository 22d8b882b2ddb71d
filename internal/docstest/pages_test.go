package docstest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README and the pages under docs/, read as GitHub shows them.

// pages are the README and every page under docs/, relative to root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, strings.TrimPrefix(d, root+"/"))
	}
	return out
}

// TestREADMEShowsTheTwoCommands: the README keeps `make demo` and
// `make test` in a shell block of their own.
func TestREADMEShowsTheTwoCommands(t *testing.T) {
	readme := readFile(t, repoRoot(t), "README.md")
	for _, command := range []string{"make demo", "make test"} {
		found := false
		for _, block := range fencedBlocks(readme, "sh") {
			for _, line := range strings.Split(block, "\n") {
				found = found || strings.HasPrefix(line, command+" ")
			}
		}
		if !found {
			t.Errorf("the README shows no `%s` in a sh block", command)
		}
	}
}

// TestLinksBetweenPagesResolve: every link of the README and docs/ to a
// file of the repository leads to one that exists, and a link to a heading
// (#anchor) to a heading of that page, with GitHub's anchors. Links to the
// web are not followed.
func TestLinksBetweenPagesResolve(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		anchors[page] = headingAnchors(readFile(t, root, page))
		return anchors[page]
	}
	links := 0
	for _, page := range pages(t, root) {
		for _, target := range pageLinks(readFile(t, root, page)) {
			links++
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Clean(filepath.Join(filepath.Dir(page), path))
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					t.Errorf("%s links to %s, which does not exist", page, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchorsOf(file)[anchor] {
				t.Errorf("%s links to %s, but %s has no heading with the anchor #%s", page, target, file, anchor)
			}
		}
	}
	if links == 0 {
		t.Fatal("no links found: the link reader is broken")
	}
}

var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// pageLinks are the targets of the page's links and images outside code
// blocks.
func pageLinks(page string) []string {
	var out []string
	for _, line := range proseLines(page) {
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives the page's headings: lower
// case, punctuation dropped, spaces as hyphens, and -1, -2, ... after a
// repeated one.
func headingAnchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(page) {
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			out[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			out[anchor] = true
		}
		seen[anchor]++
	}
	return out
}

// proseLines are the page's lines outside fenced code blocks.
func proseLines(page string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// fencedBlocks are the contents of the page's code blocks of a language.
func fencedBlocks(page, language string) []string {
	var out []string
	var block []string
	in, keep := false, false
	for _, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, keep, block = true, strings.TrimPrefix(trimmed, "```") == language, nil
		case in && trimmed == "```":
			if keep {
				out = append(out, strings.Join(block, "\n"))
			}
			in = false
		case in:
			block = append(block, line)
		}
	}
	return out
}

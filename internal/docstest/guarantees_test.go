package docstest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guaranteeCode is a code span of the Guarantees table: a package or test
// file (`providers/hue/bridge`, `providers/hue/bridge/sender_test.go`) or a
// test (`TestStreamPushesDrift`, `TestRetryAfter...` for a family).
var guaranteeCode = regexp.MustCompile("`([^`]+)`")

var (
	packagePath = regexp.MustCompile(`^(api|cmd|controllers|internal|providers|reconciler)(/[\w.-]+)*$`)
	testName    = regexp.MustCompile(`^((?:Test|Fuzz)\w+?)(\.\.\.)?$`)
)

// TestGuaranteesNameTestsThatExist keeps the Guarantees table true as code
// moves: every test a row names is defined in a package that row names, so
// a guarantee cannot point at a test that was renamed, moved or removed.
func TestGuaranteesNameTestsThatExist(t *testing.T) {
	root := repoRoot(t)
	defined := testsByPackage(t, root)
	rows := 0
	for _, row := range strings.Split(readFile(t, root, "docs/guarantees.md"), "\n") {
		if !strings.HasPrefix(row, "| ") || strings.HasPrefix(row, "|---") {
			continue
		}
		var pkgs, tests []string
		for _, m := range guaranteeCode.FindAllStringSubmatch(row, -1) {
			code := strings.TrimSuffix(m[1], "/")
			if strings.HasSuffix(code, "_test.go") {
				code = filepath.Dir(code)
			}
			switch {
			case packagePath.MatchString(code):
				pkgs = append(pkgs, code)
			case testName.MatchString(code):
				tests = append(tests, code)
			}
		}
		if len(tests) > 0 {
			rows++
		}
		for _, test := range tests {
			if !definedIn(defined, pkgs, test) {
				t.Errorf("docs/guarantees.md names %s, defined in none of %v:\n%s", test, pkgs, row)
			}
		}
	}
	if rows < 20 {
		t.Fatalf("found tests in only %d rows of the Guarantees: is the table still there?", rows)
	}
}

// definedIn: a test (or, ending in "...", a family of tests) is defined in
// one of pkgs.
func definedIn(defined map[string]map[string]bool, pkgs []string, test string) bool {
	m := testName.FindStringSubmatch(test)
	name, family := m[1], m[2] != ""
	for _, pkg := range pkgs {
		for fn := range defined[pkg] {
			if fn == name || (family && strings.HasPrefix(fn, name)) {
				return true
			}
		}
	}
	return false
}

// testsByPackage is every Test and Fuzz function of the repository, by
// package directory.
func testsByPackage(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			if name := funcName(decl); testName.MatchString(name) {
				if out[dir] == nil {
					out[dir] = map[string]bool{}
				}
				out[dir][name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// funcName is the name of a top-level function, "" for anything else.
func funcName(decl ast.Decl) string {
	fn, ok := decl.(*ast.FuncDecl)
	if !ok || fn.Recv != nil {
		return ""
	}
	return fn.Name.Name
}

package docstest

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestEveryReasonIsInTroubleshooting keeps docs/troubleshooting.md whole: it
// has a heading for every reason Tether's reconciler, controllers and providers can set
// (in a condition, an event or a metric's reason label), and every reason it
// has a heading for is one they set.
//
// The reasons come from the code itself, not from a list kept beside it:
// settableReasons type-checks every package under reconciler/,
// controllers/ and providers/ and collects the value of every expression that reaches a
// reason (see reasonFinder). So a new reason, wherever it is defined and
// however it is passed, fails this test until the page explains it.
func TestEveryReasonIsInTroubleshooting(t *testing.T) {
	root := repoRoot(t)
	reasons, unknown := settableReasons(t, root)
	for _, u := range unknown {
		t.Errorf("cannot tell which reasons this sets (give it a constant, or name what carries it ...Reason): %s", u)
	}
	// The finder must find what each of its rules is for, or a broken
	// finder would pass with nothing to check.
	for reason, rule := range map[string]string{
		"Throttled":            "a constant passed to a reason parameter",
		"SomeUnreachable":      "a constant in a Reason field",
		"Unknown":              "a constant assigned to a reason variable",
		"ObserveFailed":        "a named string type's constants joined to a suffix",
		"NoAnswer":             "a function's results at a reason position",
		"AccountBudget":        "a deferral's reason (a metric label)",
		"LinkButtonNotPressed": "the HueBridge's Paired condition",
	} {
		if _, ok := reasons[reason]; !ok {
			t.Errorf("the reason finder no longer finds %s (%s): fix settableReasons", reason, rule)
		}
	}

	documented := troubleshootingReasons(t, root)
	for _, r := range sortedKeys(reasons) {
		if !documented[r] {
			t.Errorf("docs/troubleshooting.md has no heading \"### `%s`\" (set at %s): say what it means and what to do", r, reasons[r][0])
		}
	}
	for _, r := range sortedKeys(documented) {
		if _, ok := reasons[r]; !ok {
			t.Errorf("docs/troubleshooting.md explains %s, which no controller or provider sets any more", r)
		}
	}
}

// troubleshootingReasons are the reasons docs/troubleshooting.md has a
// heading for: "### `Reason`".
func troubleshootingReasons(t *testing.T, root string) map[string]bool {
	page := readFile(t, root, "docs/troubleshooting.md")
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^### `([A-Za-z0-9]+)`\\s*$").FindAllStringSubmatch(page, -1) {
		if out[m[1]] {
			t.Errorf("docs/troubleshooting.md explains %s twice", m[1])
		}
		out[m[1]] = true
	}
	return out
}

// settableReasons type-checks reconciler/..., controllers/... and
// providers/... and returns
// every reason their code can set, each with where it is set, and the
// reason positions whose value it cannot tell.
func settableReasons(t *testing.T, root string) (map[string][]string, []string) {
	t.Helper()
	cfg := &packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./reconciler/...", "./controllers/...", "./providers/...")
	if err != nil {
		t.Fatal(err)
	}
	f := &reasonFinder{root: root, reasons: map[string][]string{}, funcs: map[*types.Func]funcSource{}}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
		f.indexFuncs(p)
	}
	for _, p := range pkgs {
		f.scan(p)
	}
	return f.reasons, f.unknown
}

// reasonFinder collects the reasons code sets. A reason position is
//   - an argument for a parameter whose name ends in "reason" (any case):
//     setReady(obj, false, reason, msg), providers.RetryAfter(d, reason, err),
//     the event recorder's Eventf(obj, related, type, reason, ...);
//   - a value for a struct field or variable whose name ends in "reason",
//     in a composite literal, an assignment or a declaration
//     (Observation{Reason: ...}, obs.Reason = ..., reason = ...).
//
// The value there is read as the type checker sees it:
//   - a constant expression (a literal, a Reason... constant) is a reason;
//   - a name ending in "reason" (a variable, parameter or field) forwards a
//     value set at another reason position, which is collected there;
//   - a call to a function of these packages has the values of its
//     return statements (classify(err) in reason, msg := classify(err));
//   - string(p) + "Failed", p of a named string type, is every constant of
//     that type joined to the suffix (the generic reconciler's
//     ConnectFailed, ObserveFailed, ...).
//
// Anything else is reported as unknown, and fails the test: a reason
// computed from the outside world (an AWS error code) would be one no page
// can list.
type reasonFinder struct {
	root    string
	reasons map[string][]string // reason -> where it is set
	unknown []string
	funcs   map[*types.Func]funcSource
}

type funcSource struct {
	decl *ast.FuncDecl
	pkg  *packages.Package
}

func (f *reasonFinder) indexFuncs(p *packages.Package) {
	for _, file := range p.Syntax {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					f.funcs[fn] = funcSource{decl: fd, pkg: p}
				}
			}
		}
	}
}

func (f *reasonFinder) scan(p *packages.Package) {
	for _, file := range p.Syntax {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sig, ok := p.TypesInfo.TypeOf(n.Fun).(*types.Signature)
				if !ok {
					return true
				}
				params := sig.Params()
				for i := 0; i < params.Len() && i < len(n.Args); i++ {
					if isReasonName(params.At(i).Name()) && !(sig.Variadic() && i == params.Len()-1) {
						f.collect(p, n.Args[i], 0, nil)
					}
				}
			case *ast.KeyValueExpr:
				if key, ok := n.Key.(*ast.Ident); ok && isReasonName(key.Name) {
					if _, isField := p.TypesInfo.Uses[key].(*types.Var); isField {
						f.collect(p, n.Value, 0, nil)
					}
				}
			case *ast.AssignStmt:
				f.assigned(p, n.Lhs, n.Rhs)
			case *ast.ValueSpec:
				lhs := make([]ast.Expr, len(n.Names))
				for i, name := range n.Names {
					lhs[i] = name
				}
				f.assigned(p, lhs, n.Values)
			}
			return true
		})
	}
}

// assigned collects what goes into the reason-named ones of lhs, also
// from a call with several results (reason, msg := classify(err)).
func (f *reasonFinder) assigned(p *packages.Package, lhs, rhs []ast.Expr) {
	for i, l := range lhs {
		if !isReasonName(exprName(l)) || !isString(p.TypesInfo.TypeOf(l)) {
			continue
		}
		switch {
		case len(rhs) == len(lhs):
			f.collect(p, rhs[i], 0, nil)
		case len(rhs) == 1:
			f.collect(p, rhs[0], i, nil)
		}
	}
}

// collect records the reasons expr (result index of a call) can be.
func (f *reasonFinder) collect(p *packages.Package, expr ast.Expr, index int, seen []*types.Func) {
	where := f.position(p, expr)
	values, ok := f.values(p, expr, index, seen)
	if !ok {
		f.unknown = append(f.unknown, fmt.Sprintf("%s: %s", where, types.ExprString(expr)))
		return
	}
	for _, v := range values {
		if v != "" {
			f.reasons[v] = append(f.reasons[v], where)
		}
	}
}

// values are the strings expr can be; ok is false when that cannot be told.
// A forward (a reason-named variable or field) has no values of its own.
func (f *reasonFinder) values(p *packages.Package, expr ast.Expr, index int, seen []*types.Func) ([]string, bool) {
	info := p.TypesInfo
	if tv, ok := info.Types[expr]; ok && tv.Value != nil {
		if tv.Value.Kind() != constant.String {
			return nil, false
		}
		return []string{constant.StringVal(tv.Value)}, true
	}
	switch e := expr.(type) {
	case *ast.ParenExpr:
		return f.values(p, e.X, index, seen)
	case *ast.Ident, *ast.SelectorExpr:
		return nil, isReasonName(exprName(e))
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return nil, false
		}
		left, lok := f.enumOrValues(p, e.X, seen)
		right, rok := f.enumOrValues(p, e.Y, seen)
		if !lok || !rok {
			return nil, false
		}
		var out []string
		for _, l := range left {
			for _, r := range right {
				out = append(out, l+r)
			}
		}
		return out, true
	case *ast.CallExpr:
		fn := calledFunc(info, e)
		src, ok := f.funcs[fn]
		if !ok || slices.Contains(seen, fn) {
			return nil, fn != nil && slices.Contains(seen, fn)
		}
		var out []string
		known := true
		ast.Inspect(src.decl.Body, func(n ast.Node) bool {
			if _, lit := n.(*ast.FuncLit); lit {
				return false
			}
			ret, isReturn := n.(*ast.ReturnStmt)
			if !isReturn || index >= len(ret.Results) {
				return true
			}
			vs, ok := f.values(src.pkg, ret.Results[index], 0, append(seen, fn))
			known = known && ok
			out = append(out, vs...)
			return true
		})
		return out, known
	}
	return nil, false
}

// enumOrValues is values, or for string(v) and v of a named string type,
// every constant of that type.
func (f *reasonFinder) enumOrValues(p *packages.Package, expr ast.Expr, seen []*types.Func) ([]string, bool) {
	if call, ok := expr.(*ast.CallExpr); ok && len(call.Args) == 1 && p.TypesInfo.Types[call.Fun].IsType() {
		expr = call.Args[0]
	}
	if named, ok := p.TypesInfo.TypeOf(expr).(*types.Named); ok && isString(named) && p.TypesInfo.Types[expr].Value == nil {
		var out []string
		scope := named.Obj().Pkg().Scope()
		for _, name := range scope.Names() {
			if c, ok := scope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), named) {
				out = append(out, constant.StringVal(c.Val()))
			}
		}
		return out, len(out) > 0
	}
	return f.values(p, expr, 0, seen)
}

func (f *reasonFinder) position(p *packages.Package, n ast.Node) string {
	pos := p.Fset.Position(n.Pos())
	return fmt.Sprintf("%s:%d", strings.TrimPrefix(pos.Filename, f.root+"/"), pos.Line)
}

// calledFunc is the function or method a call names, or nil.
func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		id = fun.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func isReasonName(name string) bool { return strings.HasSuffix(strings.ToLower(name), "reason") }

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

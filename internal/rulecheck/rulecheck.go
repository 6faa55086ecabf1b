// Package rulecheck finds copies of package game's rules in another
// package's Go source, over its syntax tree, so that a test can keep a
// copy from coming back once it has been replaced by a call into game: a
// function or constant under a removed copy's name, a comparison against
// one of game's bounds, arithmetic on a field that game interprets, a
// hand-written list of game's constants.
//
// Usage, in a package's test:
//
//	found, err := rulecheck.Check(".", rulecheck.Rules{
//		Names:       regexp.MustCompile(`^nearMaxBalance$`),
//		NotCompared: []string{"game.MaxBalance"},
//	})
//	for _, f := range found {
//		t.Errorf("%v", f)
//	}
package rulecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Rules says what a package must not contain. Qualified identifiers are
// written as in the source ("game.MaxBalance"), the package by the name it
// is imported under.
type Rules struct {
	// Names matches top-level declarations (functions, types, constants,
	// variables; not methods) that must not exist; nil checks none.
	Names *regexp.Regexp
	// Never are qualified identifiers never to be referenced at all.
	Never []string
	// NeverFields are field or method names (x.Name) never to be
	// referenced: a rule of game reads them, through a method of its own.
	NeverFields []string
	// NotCompared are qualified identifiers never to appear in an operand
	// of <, <=, > or >=: the bound is game's to check.
	NotCompared []string
	// NoArithmetic are field or method names (x.Name) never to appear in
	// an operand of + or -: game reads them.
	NoArithmetic []string
	// ListPrefix and MaxListed: no case clause or composite literal may
	// name more than MaxListed distinct qualified identifiers starting
	// with ListPrefix ("game.Kind"): a hand-written list of game's
	// constants. An empty ListPrefix checks none.
	ListPrefix string
	MaxListed  int
	// Skip names directories (base names) not to enter, such as test
	// suites that must name the bounds they test.
	Skip []string
}

// Finding is one copy found.
type Finding struct {
	Pos  token.Position
	What string
}

func (f Finding) String() string { return fmt.Sprintf("%v: %s", f.Pos, f.What) }

// Check parses the Go files of dir and of its subdirectories (but
// testdata, the ones in r.Skip, and _test.go files) and returns what
// breaks r, in file order. Its error is a file that does not parse.
func Check(dir string, r Rules) ([]Finding, error) {
	var found []Finding
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (d.Name() == "testdata" || slices.Contains(r.Skip, d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("rulecheck: %w", err)
		}
		found = append(found, r.file(fset, f)...)
		return nil
	})
	return found, err
}

// file checks one parsed file.
func (r Rules) file(fset *token.FileSet, f *ast.File) []Finding {
	var found []Finding
	report := func(n ast.Node, format string, args ...any) {
		found = append(found, Finding{Pos: fset.Position(n.Pos()), What: fmt.Sprintf(format, args...)})
	}
	declared := func(n *ast.Ident, what string) {
		if r.Names != nil && r.Names.MatchString(n.Name) {
			report(n, "%s %s declared", what, n.Name)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared(d.Name, "function")
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					declared(s.Name, "type")
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declared(n, d.Tok.String())
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if q := qualified(n); slices.Contains(r.Never, q) {
				report(n, "%s referenced", q)
			}
			if slices.Contains(r.NeverFields, n.Sel.Name) {
				report(n, "%s read", n.Sel.Name)
			}
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				for _, q := range r.NotCompared {
					if mentions(n, func(s *ast.SelectorExpr) bool { return qualified(s) == q }) {
						report(n, "comparison against %s", q)
					}
				}
			case token.ADD, token.SUB:
				for _, name := range r.NoArithmetic {
					if mentions(n, func(s *ast.SelectorExpr) bool { return s.Sel.Name == name }) {
						report(n, "arithmetic on %s", name)
					}
				}
			}
		case *ast.CaseClause:
			r.list(n, n.List, report)
		case *ast.CompositeLit:
			r.list(n, n.Elts, report)
		}
		return true
	})
	return found
}

// list reports a list naming more than MaxListed constants of ListPrefix.
func (r Rules) list(n ast.Node, elts []ast.Expr, report func(ast.Node, string, ...any)) {
	if r.ListPrefix == "" {
		return
	}
	var names []string
	for _, e := range elts {
		if s, ok := e.(*ast.SelectorExpr); ok {
			if q := qualified(s); strings.HasPrefix(q, r.ListPrefix) && !slices.Contains(names, q) {
				names = append(names, q)
			}
		}
	}
	if len(names) > r.MaxListed {
		report(n, "a hand-written list of %d %s… constants: %s", len(names), r.ListPrefix, strings.Join(names, ", "))
	}
}

// qualified returns "pkg.Name" for a selector on a bare identifier, ""
// otherwise.
func qualified(s *ast.SelectorExpr) string {
	if id, ok := s.X.(*ast.Ident); ok {
		return id.Name + "." + s.Sel.Name
	}
	return ""
}

// mentions reports whether either operand of b, anywhere in its subtree,
// holds a selector that match accepts.
func mentions(b *ast.BinaryExpr, match func(*ast.SelectorExpr) bool) bool {
	found := false
	for _, operand := range []ast.Expr{b.X, b.Y} {
		ast.Inspect(operand, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && match(s) {
				found = true
			}
			return !found
		})
	}
	return found
}

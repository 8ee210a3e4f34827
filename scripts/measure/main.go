// Command measure reports two measures of the Go source below a folder that
// docs/design.md records before and after a redesign (scripts/measure-design.sh
// runs it):
//
//	measure funcs [-n N] [DIR]  the N longest functions and methods (test files excluded)
//	measure graph [DIR]         the package graph: each package and the
//	                            packages of this module it imports, top
//	                            layer first (docs/design.md)
//	measure kinds [DIR]         branches on the model kind: type switches with
//	                            a case naming GaussModel, BinaryModel or
//	                            FiniteModel, and comparisons or switch cases
//	                            against model.Gauss/Binary/Finite or
//	                            kind.Gauss/Binary/Finite
//
// A function's length is the count of lines from its "func" keyword to its
// closing brace, both included, as gofmt lays it out. Only syntax is read
// (go/parser), so the tool needs no build and no cgo.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fset := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fset.Int("n", 15, "how many functions to list")
	if err := fset.Parse(os.Args[2:]); err != nil {
		usage()
	}
	dir := "."
	if fset.NArg() > 0 {
		dir = fset.Arg(0)
	}
	files, err := parseTree(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "funcs":
		for _, f := range longest(files, *n) {
			fmt.Printf("%4d  %s  %s:%d\n", f.lines, f.name, f.file, f.line)
		}
	case "graph":
		mod, err := modulePath(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			os.Exit(1)
		}
		printGraph(importGraph(files, dir, mod))
	case "kinds":
		for _, b := range kindBranches(files) {
			fmt.Printf("%s:%d  %s\n", b.file, b.line, b.what)
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: measure funcs [-n N] [DIR] | measure graph [DIR] | measure kinds [DIR]")
	os.Exit(2)
}

// source is one parsed non-test Go file.
type source struct {
	path string
	fset *token.FileSet
	file *ast.File
}

// parseTree parses every non-test .go file below dir, skipping hidden
// folders, testdata, scripts (this tool) and generated code (a "Code
// generated" header).
func parseTree(dir string) ([]source, error) {
	var out []source
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "scripts") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != dir && err == nil {
				return filepath.SkipDir // a module of its own (checker/): not this module's package
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		out = append(out, source{path: filepath.ToSlash(path), fset: fset, file: f})
		return nil
	})
	return out, err
}

// function is one function declaration and its length in lines.
type function struct {
	name  string
	file  string
	line  int
	lines int
}

// longest returns the n longest function declarations, longest first; ties
// in file and line order.
func longest(files []source, n int) []function {
	var fns []function
	for _, s := range files {
		for _, d := range s.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start := s.fset.Position(fd.Pos())
			end := s.fset.Position(fd.End())
			fns = append(fns, function{
				name:  funcName(s.file.Name.Name, fd),
				file:  s.path,
				line:  start.Line,
				lines: end.Line - start.Line + 1,
			})
		}
	}
	slices.SortStableFunc(fns, func(a, b function) int {
		return cmp.Or(cmp.Compare(b.lines, a.lines), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	return fns[:min(n, len(fns))]
}

// funcName is pkg.Func or pkg.Recv.Method.
func funcName(pkg string, fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return pkg + "." + fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return pkg + "." + id.Name + "." + fd.Name.Name
	}
	return pkg + "." + fd.Name.Name
}

// branch is one place that branches on the model kind.
type branch struct {
	file string
	line int
	what string
}

// modelTypes are the concrete model types; kindValues the kind constants
// as their packages spell them (package kind: Gauss, Binary, Finite, and
// package model's aliases of them).
var (
	modelTypes = map[string]bool{"GaussModel": true, "BinaryModel": true, "FiniteModel": true}
	kindValues = map[string]map[string]bool{
		"model": {"Gauss": true, "Binary": true, "Finite": true},
		"kind":  {"Gauss": true, "Binary": true, "Finite": true},
	}
)

// kindBranches finds type switches on the concrete model types and
// comparisons or switch cases against a kind constant.
func kindBranches(files []source) []branch {
	var out []branch
	for _, s := range files {
		add := func(n ast.Node, what string) {
			out = append(out, branch{file: s.path, line: s.fset.Position(n.Pos()).Line, what: what})
		}
		pkg := s.file.Name.Name
		ast.Inspect(s.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeSwitchStmt:
				if names := switchedTypes(x); len(names) > 0 {
					add(x, "type switch on "+strings.Join(names, ", "))
				}
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return true
				}
				for _, e := range []ast.Expr{x.X, x.Y} {
					if k, ok := kindConst(pkg, e); ok {
						add(x, "comparison "+x.Op.String()+" "+k)
					}
				}
			case *ast.CaseClause:
				for _, e := range x.List {
					if k, ok := kindConst(pkg, e); ok {
						add(e, "switch case "+k)
					}
				}
			}
			return true
		})
	}
	return out
}

// switchedTypes lists the concrete model types a type switch's cases name.
func switchedTypes(ts *ast.TypeSwitchStmt) []string {
	var names []string
	for _, st := range ts.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			continue
		}
		for _, e := range cc.List {
			if st, ok := e.(*ast.StarExpr); ok {
				e = st.X
			}
			var name string
			switch x := e.(type) {
			case *ast.Ident:
				name = x.Name
			case *ast.SelectorExpr:
				name = x.Sel.Name
			}
			if modelTypes[name] {
				names = append(names, name)
			}
		}
	}
	return names
}

// kindConst reports whether e names a kind constant: pkg.Name from another
// package, or the bare name inside package model or kind.
func kindConst(pkg string, e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if ok && kindValues[id.Name][x.Sel.Name] {
			return id.Name + "." + x.Sel.Name, true
		}
	case *ast.Ident:
		if kindValues[pkg][x.Name] {
			return pkg + "." + x.Name, true
		}
	}
	return "", false
}

// modulePath reads the module path from dir/go.mod.
func modulePath(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
}

// importGraph maps each package folder below dir (relative, slash-separated)
// to the packages of module mod its non-test files import, whatever their
// build constraints.
func importGraph(files []source, dir, mod string) map[string][]string {
	g := map[string][]string{}
	for _, s := range files {
		rel, err := filepath.Rel(dir, filepath.Dir(s.path))
		if err != nil {
			continue
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		for _, im := range s.file.Imports {
			path := strings.Trim(im.Path.Value, `"`)
			if dep, ok := strings.CutPrefix(path, mod+"/"); ok && !slices.Contains(g[pkg], dep) {
				g[pkg] = append(g[pkg], dep)
			}
		}
	}
	return g
}

// printGraph prints one line per package, "pkg → deps", packages that
// import the most layers first (ties by name), "—" for a leaf.
func printGraph(g map[string][]string) {
	depth := map[string]int{}
	var layer func(string) int
	layer = func(p string) int {
		if d, ok := depth[p]; ok {
			return d
		}
		depth[p] = 0 // a cycle cannot compile; this only stops the recursion
		d := 0
		for _, q := range g[p] {
			d = max(d, layer(q)+1)
		}
		depth[p] = d
		return d
	}
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
		slices.Sort(g[p])
	}
	slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(cmp.Compare(layer(b), layer(a)), cmp.Compare(a, b)) })
	for _, p := range pkgs {
		deps := "—"
		if len(g[p]) > 0 {
			deps = strings.Join(g[p], " ")
		}
		fmt.Printf("%-24s → %s\n", p, deps)
	}
}

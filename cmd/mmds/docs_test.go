package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// codeImports maps each package folder of the module rooted at root
// (relative, slash-separated) to the module's packages that its non-test
// files import, whatever their build constraints. Hidden folders, testdata
// and scripts are not packages of mmds.
func codeImports(t *testing.T, root, mod string) map[string][]string {
	t.Helper()
	g := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "scripts") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir // a module of its own (checker/): not this module's package
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		deps := g[pkg]
		for _, im := range f.Imports {
			if dep, ok := strings.CutPrefix(strings.Trim(im.Path.Value, `"`), mod+"/"); ok && !slices.Contains(deps, dep) {
				deps = append(deps, dep)
			}
		}
		g[pkg] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, deps := range g {
		slices.Sort(deps)
	}
	return g
}

// fencedBlock returns the lines of the first block of page fenced as
// "```" + info.
func fencedBlock(t *testing.T, page, info string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n```"+info+"\n")
	if !ok {
		t.Fatalf("%s: no ```%s block", page, info)
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatalf("%s: the ```%s block does not end", page, info)
	}
	return strings.Split(block, "\n")
}

// TestDesignGraph checks the package graph of docs/design.md against the
// imports of the code: the same packages, each with the same imports, each
// drawn above every package it imports (top layer first).
func TestDesignGraph(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	code := codeImports(t, root, "github.com/mmds-project/mmds")
	doc := map[string][]string{}
	line := map[string]int{}
	for i, l := range fencedBlock(t, filepath.Join(root, "docs", "design.md"), "graph") {
		pkg, deps, ok := strings.Cut(l, "→")
		if !ok {
			t.Errorf("docs/design.md graph line %q: want \"pkg → deps\"", l)
			continue
		}
		pkg = strings.TrimSpace(pkg)
		line[pkg] = i
		doc[pkg] = []string{}
		if d := strings.TrimSpace(deps); d != "—" {
			doc[pkg] = strings.Fields(d)
		}
	}
	for pkg, deps := range code {
		switch got, ok := doc[pkg]; {
		case !ok:
			t.Errorf("docs/design.md: package %s is missing from the graph (imports %v)", pkg, deps)
		case !slices.Equal(got, deps):
			t.Errorf("docs/design.md: %s → %v, the code imports %v", pkg, got, deps)
		}
		for _, dep := range deps {
			if line[dep] <= line[pkg] && doc[dep] != nil {
				t.Errorf("docs/design.md: %s is drawn above %s, which it imports", dep, pkg)
			}
		}
	}
	for pkg := range doc {
		if _, ok := code[pkg]; !ok {
			t.Errorf("docs/design.md: the graph shows %s, which is not a package", pkg)
		}
	}
	if t.Failed() {
		t.Log("regenerate the block with: go run ./scripts/measure graph")
	}
}

// TestREADMEPackages checks that README.md's package table has one row per
// package of the module and no row for a package that does not exist.
func TestREADMEPackages(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n## Packages\n")
	if !ok {
		t.Fatal("README.md: no Packages section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(table, -1)
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r[1]] = true
	}
	code := codeImports(t, root, "github.com/mmds-project/mmds")
	for pkg := range code {
		if !listed[pkg] {
			t.Errorf("README.md: package %s has no row in the package table", pkg)
		}
	}
	for pkg := range listed {
		if _, ok := code[pkg]; !ok {
			t.Errorf("README.md: the package table lists %s, which is not a package", pkg)
		}
	}
}

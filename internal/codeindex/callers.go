package codeindex

import (
	"go/ast"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Callers' words: the names of the functions of a package that call a
// function or method of the same package are added to its code words
// (the weakest field of the search but the context), so that a question
// about what it is for ("queue commands between MULTI and EXEC") meets
// the callers that name it (cmdMulti calls startTx). Calls are matched by
// name, without types: f(...) is a call of the package's function f,
// x.m(...) of any of its methods named m, unless x is an imported
// package's name.
const (
	// maxCallers bounds the callers whose names a declaration takes.
	maxCallers = 4
	// MaxCallerWords bounds the words of a declaration's callers.
	MaxCallerWords = 8
)

// calledNames returns the names that the body of d calls, each once.
func calledNames(d *ast.FuncDecl, imports map[string]bool) []string {
	if d.Body == nil {
		return nil
	}
	var out []string
	ast.Inspect(d.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var name string
		switch f := c.Fun.(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && imports[x.Name] {
				return true
			}
			name = f.Sel.Name
		}
		if name != "" && name != "_" && !slices.Contains(out, name) {
			out = append(out, name)
		}
		return true
	})
	return out
}

// importNames returns the names a file's imports are referred to by: the
// import's name, or the last element of its path (without a /vN major
// version suffix).
func importNames(f *ast.File) map[string]bool {
	m := map[string]bool{}
	for _, imp := range f.Imports {
		if imp.Name != nil {
			m[imp.Name.Name] = true
			continue
		}
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		base := path.Base(p)
		if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
			base = path.Base(path.Dir(p))
		}
		m[base] = true
		m[strings.ReplaceAll(base, "-", "_")] = true
	}
	return m
}

// shortName is the name a call uses for a declaration of the index: F
// for a function, M for a method T.M or (*T).M.
func shortName(name string) string {
	return name[strings.LastIndexByte(name, '.')+1:]
}

// addCallers adds to the words of each function and method of a package
// the words of the names of its callers in the package (at most
// maxCallers of them, in source order; MaxCallerWords words, those the
// declaration's code words lack).
func addCallers(files []File) {
	byName := map[string][]*Decl{}
	for fi := range files {
		for di := range files[fi].Decls {
			d := &files[fi].Decls[di]
			if d.Kind == Func || d.Kind == Method {
				n := shortName(d.Name)
				byName[n] = append(byName[n], d)
			}
		}
	}
	callers := map[*Decl][]string{}
	for fi := range files {
		for di := range files[fi].Decls {
			c := &files[fi].Decls[di]
			for _, n := range c.calls {
				for _, d := range byName[n] {
					cs := callers[d]
					if d != c && len(cs) < maxCallers && !slices.Contains(cs, c.Name) {
						callers[d] = append(cs, c.Name)
					}
				}
			}
			c.calls = nil
		}
	}
	for d, cs := range callers {
		code, rest, ok := strings.Cut(d.Words, " | ")
		if !ok {
			rest = " | "
		}
		have := strings.Fields(code)
		w := wordSet{max: MaxCallerWords}
		for _, c := range cs {
			for _, t := range w.tok.AppendTerms(w.scratch[:0], shortName(c)) {
				if !slices.Contains(have, t) {
					w.addTerms([]string{t})
				}
			}
		}
		if len(w.terms) == 0 {
			continue
		}
		have = append(have, w.terms...)
		d.Words = strings.Join(have, " ") + " | " + rest
	}
}

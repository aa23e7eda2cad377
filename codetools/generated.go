package codetools

import (
	"errors"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
)

// generatedFunc answers code_definition for a function the compiler
// generates for a type (type:.hash.T, type:.eq.T, as profiles and stack
// traces name them), which has no declaration of its own: the entry of T
// with a note when the catalog holds T, or else a definition without
// source that says what the function is. It returns nil, "", nil for any
// other name or error.
func (c *Catalog) generatedFunc(x *catalogIndex, name string, err error) (e *index.Entry, note string, d *Definition) {
	if !errors.Is(err, ErrUnknownName) {
		return nil, "", nil
	}
	s := strings.TrimSpace(index.TrimCallArgs(strings.TrimSpace(name)))
	// The function-table names of the functions the compiler generates
	// for a type, with what each does.
	for _, g := range [...]struct{ prefix, does string }{{"type:.hash.", "hashes"}, {"type:.eq.", "compares"}} {
		typ, ok := strings.CutPrefix(s, g.prefix)
		if !ok || typ == "" {
			continue
		}
		what := "the function the compiler generates for the type " + echoArg(typ) + ": it " + g.does +
			" values of the type and has no declaration of its own"
		if e := c.generatedType(x, strings.TrimPrefix(typ, "*")); e != nil {
			return e, echoArg(s) + " is " + what + "; the type's declaration is shown.", nil
		}
		d = &Definition{Server: c.opts.Server, ObservedAt: c.now(), Name: echoArg(s), Kind: KindFunc,
			Source: SourceRuntime, Sources: []string{SourceRuntime},
			LinkedEvidence: "not looked up: the catalog lists declarations, and this function has none"}
		u := Check{Status: StatusNotApplicable, Reason: "the function has no source to compare"}
		d.Consistency = Consistency{Status: StatusUnverified, Reason: u.Reason, Lines: u, Version: u}
		d.Limitations = "This is " + what + " (the type has no name, or its declaration is not in the catalog)."
		d.caveat = true
		return nil, "", d
	}
	return nil, "", nil
}

// generatedType returns the type entry named id, in which package main
// stands for the main package's import path, or nil.
func (c *Catalog) generatedType(x *catalogIndex, id string) *index.Entry {
	ids := []string{id}
	if rest, ok := strings.CutPrefix(id, "main."); ok {
		ids = append(ids, c.build.mainPkg+"."+rest)
		if s := x.base.Snap; s != nil && s.Manifest.MainPackage != "" {
			ids = append(ids, s.Manifest.MainPackage+"."+rest)
		}
	}
	for _, id := range ids {
		if e, ok := x.Lookup(id); ok && e.Kind == index.KindType {
			return e
		}
	}
	return nil
}

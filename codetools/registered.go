package codetools

import (
	"bytes"
	"encoding/json"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"strings"
)

// Doc is documentation the host registers. A Doc whose Name is a Go
// symbol (as accepted by code_definition) documents the same entry as the
// runtime and snapshot sources; other names create entries of their own.
type Doc struct {
	// Name is the entry id. Required.
	Name string
	// Kind is one of the Kind constants; empty means KindDoc, or the kind
	// of the existing entry the Doc attaches to.
	Kind string
	// Package is the Go import path the entry belongs to, if any.
	Package string
	// File and Line locate the definition; File must not be absolute.
	File string
	Line int
	// Documentation is returned by code_definition and searched by
	// code_search.
	Documentation string
	// Definition, if set, is the text code_definition returns.
	Definition string
}

// ToolDoc describes a registered MCP tool so agents can find tools by
// searching code. Its entry id is "tool:" + Name.
type ToolDoc struct {
	// Name, Title and Description are the tool's mcp.ToolInfo fields.
	Name         string
	Title        string
	Description  string
	InputSchema  []byte // JSON; may be nil
	OutputSchema []byte // JSON; may be nil
}

// ToolIDPrefix prefixes the ids of registered tools.
const ToolIDPrefix = "tool:"

// regDoc is a validated registered document.
type regDoc struct {
	id   string
	kind index.Kind
	hasK bool
	Doc
}

// validateDoc checks d and returns its registered form.
func (c *Catalog) validateDoc(d Doc) (regDoc, error) {
	name := strings.TrimSpace(d.Name)
	switch {
	case name == "":
		return regDoc{}, invalidf("registered documentation needs a name")
	case strings.ContainsRune(name, 0):
		return regDoc{}, invalidf("registered name %q contains a NUL character", name)
	case snapshot.IsAbs(d.File):
		return regDoc{}, invalidf("registered file %q is absolute; use a module-relative path", d.File)
	case d.Line < 0:
		return regDoc{}, invalidf("registered line %d is negative", d.Line)
	}
	r := regDoc{id: name, Doc: d}
	if !strings.HasPrefix(name, ToolIDPrefix) {
		if sym, ok := index.ParseSymbol(name, c.build.mainPkg, c.build.isModulePath); ok {
			r.id = sym.ID()
			if r.Package == "" {
				r.Package = sym.Pkg
			}
		}
	}
	if d.Kind != "" {
		k, ok := index.ParseKind(d.Kind)
		if !ok {
			return regDoc{}, invalidf("registered kind %q is not one of %s", d.Kind, strings.Join(index.KindNames[:], ", "))
		}
		r.kind, r.hasK = k, true
	}
	return r, nil
}

// toolDoc converts a tool description into a registered document whose
// definition is the tool's JSON description.
func toolDoc(t ToolDoc) regDoc {
	var def bytes.Buffer
	def.WriteString("{\n  \"name\": ")
	writeJSON(&def, t.Name)
	if t.Title != "" {
		def.WriteString(",\n  \"title\": ")
		writeJSON(&def, t.Title)
	}
	def.WriteString(",\n  \"description\": ")
	writeJSON(&def, t.Description)
	for _, s := range [...]struct {
		key string
		raw []byte
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if len(bytes.TrimSpace(s.raw)) == 0 {
			continue
		}
		def.WriteString(",\n  \"" + s.key + "\": ")
		var ind bytes.Buffer
		if json.Indent(&ind, s.raw, "  ", "  ") == nil {
			def.Write(ind.Bytes())
		} else {
			writeJSON(&def, string(s.raw))
		}
	}
	def.WriteString("\n}\n")
	doc := t.Description
	if t.Title != "" {
		doc = t.Title + ". " + doc
	}
	return regDoc{id: ToolIDPrefix + t.Name, kind: index.KindTool, hasK: true,
		Doc: Doc{Name: ToolIDPrefix + t.Name, Kind: KindTool, Documentation: doc, Definition: def.String()}}
}

func writeJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // drop the newline Encode adds
}

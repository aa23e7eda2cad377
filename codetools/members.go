package codetools

import "github.com/embedmcp/mcp/codetools/internal/index"

// Struct fields and interface methods are entries of their own (kind
// field, and method for an interface's methods; id pkg.Type.Member), read
// from the snapshot's index (codeindex.Field, codeindex.InterfaceMethod):
// a search for a configuration field's name or words finds the field, and
// code_definition answers the type that declares it, focused on the
// member's line, as it does for a member id known from the references
// alone (resolveMember). Members of the standard library are left out of
// the catalog (a -std snapshot has tens of thousands, which would cost
// megabytes); their ids still resolve through the references.

// memberOwner returns the type that declares member entry e and a Focus
// on e's line; e itself, without a Focus, when the type is not in the
// catalog.
func (x renderer) memberOwner(e *index.Entry) (*index.Entry, *Focus) {
	start := index.NameStart(e)
	if start < 2 {
		return e, nil
	}
	owner, ok := x.Lookup(e.ID[:start-1])
	if !ok {
		return e, nil
	}
	return owner, &Focus{Line: int(e.Line), Exact: true}
}

package codetools

// Kinds of catalog entries.
const (
	KindFunc    = "func"
	KindMethod  = "method"
	KindType    = "type"
	KindConst   = "const"
	KindVar     = "var"
	KindPackage = "package"
	KindTool    = "tool"
	KindDoc     = "doc"
	// KindField is a field of a struct type (id pkg.Type.Field); its
	// definition is the struct's.
	KindField = "field"
)

// Sources of catalog entries.
const (
	SourceRuntime    = "runtime"
	SourceSnapshot   = "snapshot"
	SourceRegistered = "registered"
	// SourceReferences marks a declaration of a package outside the
	// snapshot, known only because the snapshot's code refers to it.
	SourceReferences = "references"
)

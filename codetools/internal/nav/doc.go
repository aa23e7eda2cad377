// Package nav answers code_references and the lists of code_definition
// from the references mcpsnapshot recorded in the snapshot's index:
// callers, callees, references, implementations and methods, and the HTTP
// routes a host registered, matched to paths. It builds on
// package index (and reads the references through package snapshot); the
// tools build on it.
package nav

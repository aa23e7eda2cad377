package codetools

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalidArgument reports a query argument outside its documented
	// range, such as an empty query or a negative offset. Tool wrappers
	// map it to an invalid-params error.
	ErrInvalidArgument = errors.New("codetools: invalid argument")
	// ErrUnknownName reports a code_definition name that is not in the
	// catalog. Tool wrappers map it to a tool error.
	ErrUnknownName = errors.New("codetools: unknown name")
	// ErrAmbiguousName reports a code_definition name that several entries
	// answer to. Tool wrappers map it to a tool error that lists them.
	ErrAmbiguousName = errors.New("codetools: ambiguous name")
	// ErrDroppedName reports a code_definition or code_references name
	// that the binary or the snapshot holds but that Options.MaxEntries
	// left out of the catalog. Tool wrappers map it to a tool error that
	// says so (never "unknown" or "not linked").
	ErrDroppedName = errors.New("codetools: name left out of the catalog by its entry bound")
)

// droppedNameError wraps ErrDroppedName.
type droppedNameError struct {
	name, id string
	max      int
}

func (e *droppedNameError) Error() string {
	return fmt.Sprintf("%q (%s) is in the binary or the source snapshot but was left out of the catalog by its "+
		"entry bound (Options.MaxEntries %d); a larger bound answers it", echoArg(e.name), echoArg(e.id), e.max)
}
func (e *droppedNameError) Unwrap() error { return ErrDroppedName }

// argError is an error that wraps ErrInvalidArgument with a specific message.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }
func (e *argError) Unwrap() error { return ErrInvalidArgument }

func invalidf(format string, args ...any) error {
	return &argError{msg: fmt.Sprintf(format, args...)}
}

// unknownNameError wraps ErrUnknownName; it lists the closest ids.
type unknownNameError struct {
	name       string
	why        string
	candidates []string
}

func (e *unknownNameError) Error() string {
	why := e.why
	if why == "" {
		why = "not in the catalog"
	}
	return fmt.Sprintf("unknown name %q: %s; %s", echoArg(e.name), why, candidateText(e.candidates))
}
func (e *unknownNameError) Unwrap() error { return ErrUnknownName }

// ambiguousNameError wraps ErrAmbiguousName; it lists the entries.
type ambiguousNameError struct {
	name       string
	why        string
	n          int
	candidates []string
}

func (e *ambiguousNameError) Error() string {
	why := e.why
	if why == "" {
		why = fmt.Sprintf("%d entries answer to it", e.n)
	}
	return fmt.Sprintf("ambiguous name %q: %s; %s", echoArg(e.name), why, candidateText(e.candidates))
}
func (e *ambiguousNameError) Unwrap() error { return ErrAmbiguousName }

func candidateText(ids []string) string {
	if len(ids) == 0 {
		return "use code_search to find exact ids"
	}
	return "closest ids first: " + strings.Join(ids, ", ") + "; code_search finds more"
}

package codetools

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidArgument reports a query argument outside its documented
	// range, such as an empty query or a negative offset. Tool wrappers
	// map it to an invalid-params error.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrUnknownName reports a code_definition name that is not in the
	// catalog. Tool wrappers map it to a tool error.
	ErrUnknownName = errors.New("unknown name")
)

// argError is an error that wraps ErrInvalidArgument with a specific message.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }
func (e *argError) Unwrap() error { return ErrInvalidArgument }

func invalidf(format string, args ...any) error {
	return &argError{msg: fmt.Sprintf(format, args...)}
}

// unknownNameError wraps ErrUnknownName.
type unknownNameError struct{ name string }

func (e *unknownNameError) Error() string {
	return fmt.Sprintf("unknown name %q: not in the catalog; use code_search to find exact ids", e.name)
}
func (e *unknownNameError) Unwrap() error { return ErrUnknownName }

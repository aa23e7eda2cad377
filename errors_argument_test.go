package mcp

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// TestArgumentMessage: what a tool's error wrapping ErrInvalidArguments
// tells the model comes from the errors it wraps, not from its text.
func TestArgumentMessage(t *testing.T) {
	odd := errors.New("limit must be even")
	for i, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: %w", ErrInvalidArguments, odd), "limit must be even"},
		{errors.Join(ErrInvalidArguments, odd), "limit must be even"},
		{fmt.Errorf("search: %w", fmt.Errorf("%w: %w", ErrInvalidArguments, odd)), "limit must be even"},
		{fmt.Errorf("%w: %w: %w", ErrInvalidArguments, odd, errors.New("and positive")), "limit must be even; and positive"},
		{fmt.Errorf("%w: limit must be even", ErrInvalidArguments), "mcp: invalid arguments: limit must be even"},
		{ErrInvalidArguments, "mcp: invalid arguments"},
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if got := argumentMessage(tc.err); got != tc.want {
				t.Errorf("argumentMessage(%q) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

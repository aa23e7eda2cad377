package mcptest

import (
	"context"
	"errors"

	"github.com/embedmcp/mcp/tasks"
)

// CheckTaskStore checks the contract of a task store and reports every
// violation as a *Violation (Rule "task-store/…"), as CheckTool does for
// tools; it runs tasks.TestStore, which says what is checked.
//
// Deprecated: use tasks.TestStore, which reports the same violations as
// *tasks.Violation. CheckTaskStore is kept for one release.
func CheckTaskStore(ctx context.Context, store tasks.Store) error {
	err := tasks.TestStore(ctx, store)
	if err == nil {
		return nil
	}
	var found []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		found = j.Unwrap()
	} else {
		found = []error{err}
	}
	errs := make([]error, 0, len(found))
	for _, e := range found {
		var v *tasks.Violation
		if errors.As(e, &v) {
			e = &Violation{Rule: "task-store/" + v.Rule, Detail: v.Detail}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

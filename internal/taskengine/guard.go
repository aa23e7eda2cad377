package taskengine

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/embedmcp/mcp/tasks"
)

// Panicked is the last line of a task's goroutine: a panic that escaped
// everything that runs a task's tool (the tool's and the middleware's own
// are recovered where they run) is logged once, with its stack, and the
// task fails, so that it does not wait for its lease while the process
// stays up. A store that panics too leaves the task to its lease. tool and
// principal are those of the call, r the value recovered.
func (e *Engine) Panicked(ctx context.Context, rec *tasks.Record, tool, principal string, r any) {
	e.logger.LogAttrs(ctx, slog.LevelError, "mcp: task panicked",
		slog.String("task", rec.ID), slog.String("tool", tool), slog.String("principal", principal),
		slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
	defer func() {
		if r := recover(); r != nil {
			e.logger.LogAttrs(ctx, slog.LevelError, "mcp: storing a panicked task's failure panicked; it fails when its lease ends",
				slog.String("task", rec.ID), slog.Any("panic", r))
		}
	}()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	const message = "Internal error: the task's tool panicked"
	_, err := e.Update(sctx, rec.ID, func(t *tasks.Record) (bool, error) {
		if t.Status != tasks.Working || t.Owner != e.replica || t.Round != rec.Round {
			return false, nil
		}
		Fail(t, e.internalError(message), "Tool execution failed: "+message)
		return true, nil
	})
	if err != nil {
		e.logger.LogAttrs(ctx, slog.LevelError, "mcp: storing a panicked task's failure failed; it fails when its lease ends",
			slog.String("task", rec.ID), slog.String("error", err.Error()))
	}
}

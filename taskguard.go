package mcp

import (
	"context"
	"log/slog"
	"runtime/debug"
)

// taskPanicked is the last line of a task's goroutine: a panic that
// escaped everything that runs a task's tool (the tool's and the
// middleware's own are recovered where they run) is logged once, with its
// stack, and the task fails, so that it does not wait for its lease while
// the process stays up. A store that panics too leaves the task to its
// lease.
func (s *Server) taskPanicked(ctx context.Context, rec *TaskRecord, req *Request, r any) {
	s.logger.LogAttrs(ctx, slog.LevelError, "mcp: task panicked",
		slog.String("task", rec.ID), slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
		slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
	defer func() {
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: storing a panicked task's failure panicked; it fails when its lease ends",
				slog.String("task", rec.ID), slog.Any("panic", r))
		}
	}()
	e := s.tasks
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	rpc := &Error{Code: CodeInternalError, Message: "Internal error: the task's tool panicked"}
	_, err := e.update(sctx, rec.ID, func(t *TaskRecord) (bool, error) {
		if t.Status != TaskWorking || t.Owner != e.replica || t.Round != rec.Round {
			return false, nil
		}
		failTask(t, rpc, "Tool execution failed: "+rpc.Message)
		return true, nil
	})
	if err != nil {
		s.logger.LogAttrs(ctx, slog.LevelError, "mcp: storing a panicked task's failure failed; it fails when its lease ends",
			slog.String("task", rec.ID), slog.String("error", err.Error()))
	}
}

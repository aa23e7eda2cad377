package taskengine

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// outcomeWaitMax bounds the wait between two attempts at storing an
// outcome.
const outcomeWaitMax = 2 * time.Second

// StoreOutcome applies settle to the stored task, working here in rec's
// round, until that is stored or the task expires: an outcome outlives an
// outage of the store. It is kept meanwhile by this goroutine, which holds
// the task's running slot, so that mcp.TaskOptions.MaxRunning bounds the
// outcomes waiting. Attempts are spaced from 100 ms, doubling, up to
// outcomeWaitMax (or a third of the lease when shorter), so that the
// outcome is stored soon after the store returns. A task the store lost
// (not found before it expired) is stored anew with its outcome.
func (e *Engine) StoreOutcome(ctx context.Context, rec *tasks.Record, settle func(*tasks.Record)) (*tasks.Record, error) {
	waitMax := min(outcomeWaitMax, e.lease/3)
	for attempt, wait := 0, 100*time.Millisecond; ; attempt, wait = attempt+1, min(wait*2, waitMax) {
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		stored, err := e.Update(sctx, rec.ID, func(r *tasks.Record) (bool, error) {
			if r.Status != tasks.Working || r.Owner != e.replica || r.Round != rec.Round {
				return false, nil // cancelled, failed or taken over meanwhile
			}
			settle(r)
			return true, nil
		})
		cancel()
		switch {
		case err == nil:
			if attempt > 0 {
				e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: a task's outcome was stored after the store came back",
					slog.String("task", rec.ID), slog.Int("attempts", attempt+1))
			}
			e.Ledger.Note(stored)
			return stored, nil
		case errors.Is(err, tasks.ErrNotFound):
			return e.restoreLost(ctx, rec, settle, err)
		case !e.now().Add(wait).Before(rec.Expires):
			return nil, err
		case attempt == 0:
			e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: storing a task's outcome failed; retrying until it is stored or the task expires",
				slog.String("task", rec.ID), slog.Time("expires", rec.Expires), slog.String("error", err.Error()))
		}
		time.Sleep(wait)
	}
}

// restoreLost stores the outcome of a task the store lost while it ran
// here, as a new record, if the ledger says it was acknowledged and has not
// expired; notFound otherwise.
func (e *Engine) restoreLost(ctx context.Context, rec *tasks.Record, settle func(*tasks.Record), notFound error) (*tasks.Record, error) {
	if _, _, ok := e.Ledger.Lookup(rec.ID, e.now()); !ok {
		return nil, notFound
	}
	out := *rec
	out.Version += LostVersionJump
	if now := e.now(); now.After(out.Updated) {
		out.Updated = now
	}
	settle(&out)
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := e.store.Create(sctx, &out, 0); err != nil {
		e.LostTask(ctx, rec.ID) // logged there
		return nil, ErrLost
	}
	e.logger.LogAttrs(ctx, slog.LevelError, "mcp: task lost by the task store while it ran; its outcome was stored again",
		slog.String("task", rec.ID), slog.String("tool", rec.Tool), slog.String("status", string(out.Status)),
		slog.String("check", "the store's eviction policy (Redis: maxmemory-policy noeviction), persistence and failover"))
	return &out, nil
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// notifications/tasks on subscriptions/listen (SEP-2663): a client lists
// task IDs in notifications.taskIds; the server agrees to those that are
// the caller's own (others are left out exactly like unknown ones), sends
// each one's current DetailedTask, then another whenever one changes, until
// it finishes. Changes come from the store's feed (one per Server, shared by
// its streams), and from a poll, which also fails tasks whose lease ran out.

// maxListenTasks bounds the task IDs one subscriptions/listen may follow.
const maxListenTasks = 100

// taskSub is the task part of one subscriptions/listen stream.
type taskSub struct {
	s      *Server
	caller Caller
	method string
	subID  []byte            // raw id of the subscriptions/listen request
	agreed []string          // IDs agreed to, in the request's order
	live   map[string]uint64 // agreed, not yet finished: the last version sent
	wake   chan tasks.Change
	stop   func()
	tick   *time.Ticker
}

// subscribeTasks reads notifications.taskIds and agrees to the caller's
// tasks among them. It returns nil when the request names none or the
// server has tasks disabled.
func (s *Server) subscribeTasks(ctx context.Context, m *message, filter map[string]any) (*taskSub, error) {
	raw, has := filter["taskIds"]
	if !has || s.tasks == nil {
		return nil, nil
	}
	if !declaresTasks(m.meta) {
		return nil, missingTasks("notifications.taskIds needs the extension " + tasks.Extension +
			": declare it in _meta " + metaClientCapabilities + ".extensions")
	}
	arr, ok := raw.([]any)
	if !ok {
		return nil, invalidParams("notifications.taskIds must be an array of strings, got %s", jsonTypeName(raw))
	}
	if len(arr) > maxListenTasks {
		return nil, invalidParams("notifications.taskIds names %d tasks; at most %d can be followed on one stream", len(arr), maxListenTasks)
	}
	wanted := make(map[string]bool, len(arr))
	for i, v := range arr {
		id, ok := v.(string)
		if !ok {
			return nil, invalidParams("notifications.taskIds[%d] must be a string, got %s", i, jsonTypeName(v))
		}
		if validTaskID(id) {
			wanted[id] = true
		}
	}
	ts := &taskSub{s: s, caller: m.caller, method: m.method, subID: m.id, live: map[string]uint64{},
		wake: make(chan tasks.Change, 64)}
	// Follow before reading, so that no change after the reading is missed.
	ids := make([]string, 0, len(wanted))
	for id := range wanted {
		ids = append(ids, id)
	}
	ts.stop = s.tasks.followTasks(ids, ts.wake)
	for _, v := range arr {
		id, _ := v.(string)
		if _, dup := ts.live[id]; dup || !wanted[id] {
			continue
		}
		if _, err := ts.load(ctx, id); err == nil {
			ts.agreed = append(ts.agreed, id)
			ts.live[id] = 0
		}
	}
	// The poll is a backstop (a change the feed lost, a lease that ran
	// out): at the polling interval, but no more often than leases are
	// renewed.
	ts.tick = time.NewTicker(max(s.tasks.poll, s.tasks.lease/3))
	return ts, nil
}

// close ends the subscription's watch and poll.
func (ts *taskSub) close() {
	if ts != nil {
		ts.stop()
		ts.tick.Stop()
	}
}

// load reads one of the caller's tasks, failed first if its lease ran out.
func (ts *taskSub) load(ctx context.Context, id string) (*tasks.Record, error) {
	s := ts.s
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	rec, err := s.tasks.store.Get(sctx, id)
	if errors.Is(err, tasks.ErrNotFound) {
		if rec = s.tasks.lostTask(sctx, id); rec == nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if !s.visible(ctx, ts.caller, rec) {
		return nil, tasks.ErrNotFound
	}
	return s.tasks.reap(sctx, rec)
}

// changed refreshes a followed task the store reports changed beyond the
// version last sent.
func (ts *taskSub) changed(ctx context.Context, ch tasks.Change, notify func(string, json.RawMessage) error) error {
	if last, ok := ts.live[ch.ID]; !ok || ch.Version <= last {
		return nil
	}
	return ts.refresh(ctx, ch.ID, notify)
}

// refresh sends the DetailedTask of id if it changed since last sent, and
// stops following it once it is finished or gone.
func (ts *taskSub) refresh(ctx context.Context, id string, notify func(string, json.RawMessage) error) error {
	last, ok := ts.live[id]
	if !ok {
		return nil
	}
	rec, err := ts.load(ctx, id)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		delete(ts.live, id)
		return nil
	case err != nil:
		ts.s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: following a task failed", slog.String("task", id),
			slog.String("error", err.Error()))
		return nil
	case rec.Version <= last:
		return nil
	}
	ts.live[id] = rec.Version
	if rec.Status.Terminal() {
		delete(ts.live, id)
	}
	return notify("notifications/tasks", appendTaskNote(nil, ts.subID, rec))
}

// refreshAll refreshes every task still followed.
func (ts *taskSub) refreshAll(ctx context.Context, notify func(string, json.RawMessage) error) error {
	for _, id := range ts.agreed {
		if err := ts.refresh(ctx, id, notify); err != nil {
			return err
		}
	}
	return nil
}

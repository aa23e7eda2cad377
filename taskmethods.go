package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"github.com/embedmcp/mcp/tasks"
)

// tasks/get, tasks/update and tasks/cancel (2026-07-28, with the Tasks
// extension declared on the request). A task is visible only to the caller
// that created it (same Principal and Server), and only while that caller
// may still use the task's tool; to anyone else it answers exactly like a
// task that does not exist.

// taskMethod dispatches the tasks/* methods.
func (s *Server) taskMethod(ctx context.Context, m *message) ([]byte, error) {
	if !declaresTasks(m.meta) {
		return nil, missingTasks(m.method + " needs the extension " + tasks.Extension +
			": declare it in _meta " + metaClientCapabilities + ".extensions")
	}
	id, err := taskIDParam(m.params)
	if err != nil {
		return nil, err
	}
	switch m.method {
	case "tasks/get":
		return s.getTask(ctx, m, id)
	case "tasks/update":
		return s.updateTask(ctx, m, id)
	}
	return s.cancelTask(ctx, m, id)
}

// taskIDParam reads params.taskId.
func taskIDParam(params map[string]any) (string, error) {
	raw, has := params["taskId"]
	if !has {
		return "", invalidParams("taskId is required")
	}
	id, ok := raw.(string)
	if !ok {
		return "", invalidParams("taskId must be a string, got %s", jsonTypeName(raw))
	}
	if !validTaskID(id) {
		return "", invalidParams("taskId %s is not a task ID this server issues (22 base64url characters)", quoteName(id))
	}
	return id, nil
}

// taskNotFound is the answer for a task that does not exist, expired, or
// belongs to another caller: the same in all three cases.
func taskNotFound(id string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Task not found: " + strconv.Quote(id) +
		" (no such task for this caller, or it expired)"}
}

// storeFailure is the answer when the task store fails; the cause is
// logged.
func (s *Server) storeFailure(ctx context.Context, id string, err error) *Error {
	if errors.Is(err, tasks.ErrStoreFull) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: task store full", slog.String("task", id), slog.String("error", err.Error()))
		return storeFull(ctx, "the task store is full")
	}
	if errors.Is(err, tasks.ErrUnavailable) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: task store unavailable", slog.String("task", id), slog.String("error", err.Error()))
		return storeUnavailable(ctx, "the task store is failing over or unreachable")
	}
	s.logger.LogAttrs(ctx, slog.LevelError, "mcp: task store failed", slog.String("task", id), slog.String("error", err.Error()))
	return &Error{Code: CodeInternalError, Message: "Internal error: the task store is unavailable; retry later"}
}

// visible reports whether caller may see rec.
func (s *Server) visible(ctx context.Context, caller Caller, rec *tasks.Record) bool {
	return rec.Principal == caller.Principal && rec.Server == caller.Server &&
		allowed(ctx, s.az, caller, rec.Permission)
}

// loadTask returns the caller's task id, failed first if its lease ran out.
func (s *Server) loadTask(ctx context.Context, m *message, id string) (*tasks.Record, error) {
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	rec, err := s.tasks.store.Get(sctx, id)
	if errors.Is(err, tasks.ErrNotFound) {
		// Lost by the store, if this replica acknowledged it: then it
		// answers as failed, saying so.
		rec = s.tasks.lostTask(sctx, id)
		if rec == nil {
			return nil, taskNotFound(id)
		}
		err = nil
	}
	switch {
	case err != nil:
		return nil, s.storeFailure(ctx, id, err)
	case !s.visible(ctx, m.caller, rec):
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: task request by another caller", slog.String("task", id),
			slog.String("method", m.method), slog.String("principal", m.caller.Principal))
		return nil, taskNotFound(id)
	}
	reaped, err := s.tasks.reap(sctx, rec)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return nil, taskNotFound(id)
	case err != nil:
		// Failing the task could not be stored (a full store, say): the
		// read still answers, with the task as stored.
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: failing a task whose lease ended could not be stored; answered as stored",
			slog.String("task", id), slog.String("error", err.Error()))
		return rec, nil
	}
	return reaped, nil
}

// getTask answers tasks/get with the DetailedTask.
func (s *Server) getTask(ctx context.Context, m *message, id string) ([]byte, error) {
	rec, err := s.loadTask(ctx, m, id)
	if err != nil {
		return nil, err
	}
	return m.respond(appendGetTaskResult(make([]byte, 0, 320+len(rec.Result)), rec, s.infoRaw)), nil
}

// ack is the empty result of tasks/update and tasks/cancel.
// ignored are the inputResponses keys of a tasks/update that answered
// nothing outstanding: the first 16 in order are named, each shortened.
func (s *Server) ack(m *message, ignored []string) []byte {
	slices.Sort(ignored)
	if len(ignored) > 16 {
		ignored = ignored[:16]
	}
	for i, k := range ignored {
		ignored[i] = shorten(k)
	}
	return m.respond(appendTaskAck(nil, s.infoRaw, ignored))
}

// updateTask answers tasks/update: responses to outstanding input requests
// are kept; once all of a round's requests are answered, the tool runs
// again here, with them. SEP-2663: "A server SHOULD ignore any
// inputResponses responses mapped to a key that is not currently
// outstanding for the task — including keys that were never issued, keys
// that have already been answered, and keys whose corresponding request
// has been superseded." So such keys are acknowledged, not refused (the
// conformance suite expects the acknowledgement), and named in the
// acknowledgement's _meta (ignoredInputResponses); a task that waits for
// no input (working again after its last answer, or finished) has no key
// outstanding, so an update of it, a client's retry say, is acknowledged
// the same way and changes nothing. A task this caller does not have and
// malformed inputResponses are refused with -32602.
func (s *Server) updateTask(ctx context.Context, m *message, id string) ([]byte, error) {
	raw, has := m.params["inputResponses"]
	if !has {
		return nil, invalidParams("inputResponses is required")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, invalidParams("inputResponses must be an object, got %s", jsonTypeName(raw))
	}
	responses := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		if _, isObj := v.(map[string]any); !isObj {
			return nil, invalidParams("inputResponses[%s] must be an object, got %s", quoteName(k), jsonTypeName(v))
		}
		enc, err := appendJSON(nil, v)
		if err != nil {
			return nil, invalidParams("inputResponses[%s]: %v", quoteName(k), err)
		}
		responses[k] = enc
	}
	rec, err := s.loadTask(ctx, m, id)
	if err != nil {
		return nil, err
	}
	if rec.Status != tasks.InputRequired {
		return s.ignoreInputs(ctx, m, id, rec.Status, responses), nil
	}
	// Will this update answer everything outstanding? Then the tool runs
	// again here: a slot is taken first.
	var tr *taskRun
	var req *Request
	completes := true
	for k := range rec.InputRequests {
		if _, ok := responses[k]; !ok {
			completes = false
		}
	}
	if completes {
		req = s.resumeRequest(m.caller, rec)
		rctx, err := s.admit(ctx, req, nil, &rec.Permission)
		if err != nil {
			return s.failResume(ctx, m, rec, err)
		}
		if tr, err = s.prepareRun(rctx, m.tr, id, rec.Version, rec.Expires); err != nil {
			var se *taskStoreError
			if errors.As(err, &se) {
				return nil, &Error{Code: CodeInternalError, Message: "Internal error: this server is shutting down; send the update again"}
			}
			return nil, err
		}
	}
	var ignored []string
	resumed, waiting := false, true
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	stored, err := s.tasks.update(sctx, id, func(r *tasks.Record) (bool, error) {
		ignored, resumed, waiting = ignored[:0], false, r.Status == tasks.InputRequired
		if !waiting {
			return false, nil
		}
		pending := maps.Clone(r.InputRequests)
		answered := maps.Clone(r.InputResponses)
		if answered == nil {
			answered = map[string]json.RawMessage{}
		}
		for k, v := range responses {
			if _, out := pending[k]; !out {
				ignored = append(ignored, k)
				continue
			}
			delete(pending, k)
			answered[k] = v
		}
		if len(ignored) == len(responses) {
			return false, nil // nothing outstanding answered: nothing changes
		}
		if len(pending) > 0 || tr == nil {
			r.InputRequests, r.InputResponses = pending, answered
			return true, nil
		}
		inputs := make(map[string]json.RawMessage, len(answered))
		for k, v := range answered {
			inputs[toolKey(k)] = v
		}
		req.c.setRetry(inputs, r.State)
		r.Status, r.StatusMessage, r.Owner = tasks.Working, "", s.tasks.replica
		r.InputRequests, r.InputResponses, r.State = nil, nil, nil
		resumed = true
		return true, nil
	})
	if !resumed && tr != nil {
		s.abandon(tr)
	}
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return nil, taskNotFound(id)
	case errors.As(err, new(*Error)):
		return nil, err
	case err != nil:
		return nil, s.storeFailure(ctx, id, err)
	}
	if resumed {
		s.launch(tr, stored, req, s.validateExecute)
	}
	if !waiting { // it stopped waiting meanwhile: nothing was outstanding
		return s.ignoreInputs(ctx, m, id, stored.Status, responses), nil
	}
	if len(ignored) > 0 {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "mcp: tasks/update answered no outstanding request for some keys",
			slog.String("task", id), slog.Int("ignored", len(ignored)))
	}
	return s.ack(m, ignored), nil
}

// ignoreInputs acknowledges a tasks/update of a task that waits for no
// input: every key answers nothing outstanding.
func (s *Server) ignoreInputs(ctx context.Context, m *message, id string, status tasks.Status, responses map[string]json.RawMessage) []byte {
	s.logger.LogAttrs(ctx, slog.LevelDebug, "mcp: tasks/update of a task that waits for no input",
		slog.String("task", id), slog.String("status", string(status)), slog.Int("ignored", len(responses)))
	return s.ack(m, slices.Collect(maps.Keys(responses)))
}

// resumeRequest rebuilds the tools/call of a task, made again by caller,
// to whom loadTask showed the task (the Authorizer allowed the task's
// permission in this request already: admit is told so).
func (s *Server) resumeRequest(caller Caller, rec *tasks.Record) *Request {
	req := &Request{Caller: caller, ProtocolVersion: rec.ProtocolVersion, Name: rec.Tool, Arguments: rec.Arguments}
	if len(rec.Meta) > 0 {
		if v, err := parseJSON(rec.Meta, outputLimits); err == nil {
			req.Meta, _ = v.(map[string]any)
		}
	}
	if len(req.Arguments) == 0 {
		req.Arguments = json.RawMessage("{}")
	}
	return req
}

// failResume fails a task whose tool can no longer run (it was removed),
// and acknowledges the update that found out.
func (s *Server) failResume(ctx context.Context, m *message, rec *tasks.Record, cause error) ([]byte, error) {
	rpc := s.rpcError(ctx, cause)
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	_, err := s.tasks.update(sctx, rec.ID, func(r *tasks.Record) (bool, error) {
		if r.Status != tasks.InputRequired || r.Round != rec.Round {
			return false, nil
		}
		failTask(r, rpc, "Tool execution failed: "+rpc.Message)
		return true, nil
	})
	if err != nil && !errors.Is(err, tasks.ErrNotFound) {
		return nil, s.storeFailure(ctx, rec.ID, err)
	}
	return s.ack(m, nil), nil
}

// cancelTask answers tasks/cancel: a task not yet finished is cancelled
// at once, and its tool's context is cancelled where it runs (here, or on
// the replica that learns it from the store). Cancelling a finished task
// changes nothing and is acknowledged the same.
func (s *Server) cancelTask(ctx context.Context, m *message, id string) ([]byte, error) {
	rec, err := s.loadTask(ctx, m, id)
	if err != nil {
		return nil, err
	}
	if rec.Status.Terminal() {
		return s.ack(m, nil), nil
	}
	owner := ""
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	_, err = s.tasks.update(sctx, id, func(r *tasks.Record) (bool, error) {
		if r.Status.Terminal() {
			return false, nil
		}
		owner = r.Owner
		r.Status, r.StatusMessage = tasks.Cancelled, "Cancelled at the client's request"
		r.Owner, r.InputRequests, r.InputResponses, r.State = "", nil, nil, nil
		return true, nil
	})
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return nil, taskNotFound(id)
	case err != nil:
		return nil, s.storeFailure(ctx, id, err)
	}
	if owner == s.tasks.replica {
		s.tasks.stopLocal(id, errTaskCancelled)
	}
	return s.ack(m, nil), nil
}

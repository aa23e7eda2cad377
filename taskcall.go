package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// A tools/call becomes a task when the tool's TaskSupport allows it, the
// request is made under 2026-07-28 and its client capabilities declare the
// extension. The call is looked up, authorized and validated (Validate may
// still ask for input first, through a multi round-trip InputRequired),
// then the task is stored, and only then is the CreateTaskResult sent: any
// replica's tasks/get finds it. The tool runs on in a goroutine of this
// replica, which renews its lease on the task until the outcome is stored.

// storeTimeout bounds one operation on the task store made for a request.
const storeTimeout = 5 * time.Second

// declaresTasks reports whether a request's client capabilities declare
// the Tasks extension.
func declaresTasks(meta map[string]any) bool {
	caps, _ := meta[metaClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[tasks.Extension].(map[string]any)
	return ok
}

// missingTasks is the -32021 error of a request that needs the extension.
func missingTasks(why string) *Error {
	return &Error{Code: CodeMissingClientCapability, Message: "Missing required client capability: " + why,
		Data: map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]any{tasks.Extension: map[string]any{}}}}}
}

// storeFullRetry is the Retry-After of a request refused because the task
// store is full.
const storeFullRetry = 5 * time.Second

// storeFull is the -32001 answer when the task store is full: retryable,
// with Retry-After over HTTP.
func storeFull(ctx context.Context, what string) *Error {
	if ex := ExchangeFromContext(ctx); ex != nil {
		ex.retryAfter = storeFullRetry
	}
	return &Error{Code: CodeLimitExceeded, Message: "Too many tasks: " + what + "; retry in " + storeFullRetry.String(),
		Data: map[string]any{"retryAfterMs": storeFullRetry.Milliseconds()}}
}

// taskStoreError is a task the store could not take.
type taskStoreError struct{ err error }

func (e *taskStoreError) Error() string { return "mcp: storing the task: " + e.err.Error() }
func (e *taskStoreError) Unwrap() error { return e.err }

// taskMode decides whether an admitted tools/call runs as a task: when
// its tool's TaskSupport allows it, the Server has tasks, and the request
// is made under 2026-07-28 by a client declaring the extension. A tool that
// runs only as a task, called otherwise, is refused.
func (s *Server) taskMode(ctx context.Context, req *Request, m *message) (asTask bool, err error) {
	ts := req.c.compiled.info.TaskSupport
	switch {
	case ts == TaskNever:
		return false, nil
	case s.tasks == nil && ts == TaskRequired:
		s.logger.LogAttrs(ctx, slog.LevelError, "mcp: a tool that runs only as a task was called, but tasks are disabled (Options.Tasks.Disabled)",
			slog.String("tool", req.Name))
		return false, &Error{Code: CodeInternalError, Message: "Internal error: tool " + quoteName(req.Name) +
			" runs only as a task, and this server has tasks disabled"}
	case s.tasks == nil:
		return false, nil
	case !m.rev.tasksExtension() && ts == TaskRequired:
		return false, missingTasks("tool " + quoteName(req.Name) + " runs only as a task: call it under protocol " +
			Version20260728 + " from a client that declares the extension " + tasks.Extension)
	case !declaresTasks(m.meta) && ts == TaskRequired:
		return false, missingTasks("tool " + quoteName(req.Name) + " runs only as a task: declare the extension " +
			tasks.Extension + " in _meta " + metaClientCapabilities + ".extensions")
	case !m.rev.tasksExtension() || !declaresTasks(m.meta):
		return false, nil
	}
	return true, nil
}

// startTask stores the validated call req as a task, spawns it and returns
// the CreateTaskResult. It returns neither (nil, nil) when a TaskOptional
// tool finds no slot or the store refuses the task: the call then runs at
// once.
func (s *Server) startTask(ctx context.Context, req *Request, m *message) (created []byte, err error) {
	ts := req.c.compiled.info.TaskSupport
	created, err = s.createTask(ctx, req, m)
	var se *taskStoreError
	var rpc *Error
	if errors.As(err, &rpc) && rpc.Code == CodeLimitExceeded && ts == TaskOptional {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "mcp: no task slot; the call runs at once", slog.String("tool", req.Name),
			slog.String("principal", req.Caller.Principal), slog.String("limit", rpc.Message))
		return nil, nil // run it now instead
	}
	if errors.As(err, &se) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: the task store refused a task", slog.String("tool", req.Name),
			slog.String("error", se.err.Error()))
		if ts == TaskOptional {
			return nil, nil // run it now instead
		}
		if errors.Is(err, tasks.ErrStoreFull) {
			return nil, storeFull(ctx, "tool "+quoteName(req.Name)+" runs only as a task, and the task store is full")
		}
		if errors.Is(err, tasks.ErrQuota) {
			return nil, taskQuotaError(req.Name)
		}
		if errors.Is(err, tasks.ErrUnavailable) {
			return nil, storeUnavailable(ctx, "tool "+quoteName(req.Name)+" runs only as a task, and the task store is failing over or unreachable")
		}
		why := "the task store is unavailable"
		if errors.Is(err, errShutdown) {
			why = "this server is shutting down"
		}
		return nil, &Error{Code: CodeInternalError, Message: "Internal error: " + why + ", and tool " +
			quoteName(req.Name) + " runs only as a task; try again later"}
	}
	return created, err
}

// createTask stores a new task for the validated call req, starts it and
// returns the CreateTaskResult.
func (s *Server) createTask(ctx context.Context, req *Request, m *message) ([]byte, error) {
	e := s.tasks
	id, err := newTaskID()
	if err != nil {
		return nil, err
	}
	kept, meta, dropped, err := taskMeta(m.meta)
	if err != nil {
		return nil, err
	}
	if dropped > 0 {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: a task keeps only part of its request's _meta",
			slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
			slog.Int("droppedMembers", dropped), slog.Int("keptBytes", len(meta)), slog.Int("maxBytes", taskMetaMax))
	}
	// The record and the running task own what they keep, in allocations of
	// their own size: the arguments are a slice of the request body, which
	// must not stay alive with the task (nor while its tool runs).
	req.Arguments, req.Meta, meta = bytes.Clone(req.Arguments), kept, bytes.Clone(meta)
	now := e.now()
	rec := &tasks.Record{ID: id, Version: 1, Status: tasks.Working, Created: now, Updated: now, Expires: now.Add(e.ttl),
		PollInterval: e.poll, Principal: req.Caller.Principal, Server: req.Caller.Server,
		Permission: req.c.compiled.info.Permission, Tool: req.Name, Arguments: req.Arguments, Meta: meta,
		ProtocolVersion: req.ProtocolVersion, Owner: e.replica}
	tr, err := s.prepareRun(ctx, m.tr, id, rec.Version, rec.Expires)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	err = e.store.Create(sctx, rec, e.lease)
	cancel()
	if err != nil {
		s.abandon(tr)
		return nil, &taskStoreError{err}
	}
	s.launch(tr, rec, req, s.execute)
	return m.respond(appendCreateTaskResult(make([]byte, 0, 320), rec, s.infoRaw)), nil
}

// taskMetaMax bounds the part of a request's _meta a task keeps: in its
// record (TaskRecord.Meta) and as the Request.Meta its tool sees while it
// runs, for as long as it runs (hours, maybe, and 100 tasks per caller).
const taskMetaMax = 64 << 10

// taskMeta is the part of a request's _meta a task keeps, with its
// encoding, and how many members it drops: all of it when it encodes in
// taskMetaMax bytes. Beyond that, the members the protocol defines
// (io.modelcontextprotocol/..., progressToken) and trace context
// (traceparent, tracestate, baggage) are kept first, then the others,
// smallest first, while they fit.
func taskMeta(meta map[string]any) (kept map[string]any, enc []byte, dropped int, err error) {
	enc, err = appendJSON(nil, meta)
	if err != nil || len(enc) <= taskMetaMax {
		return meta, enc, 0, err
	}
	type member struct {
		key      string
		size     int
		protocol bool
	}
	members := make([]member, 0, len(meta))
	for k, v := range meta {
		b, err := appendJSON(nil, v)
		if err != nil {
			return nil, nil, 0, err
		}
		protocol := strings.HasPrefix(k, "io.modelcontextprotocol/") || k == "progressToken" ||
			k == "traceparent" || k == "tracestate" || k == "baggage"
		members = append(members, member{k, len(k) + len(b) + 4, protocol}) // "k":v,
	}
	sort.Slice(members, func(i, j int) bool {
		a, b := members[i], members[j]
		if a.protocol != b.protocol {
			return a.protocol
		}
		if a.size != b.size {
			return a.size < b.size
		}
		return a.key < b.key
	})
	kept = map[string]any{}
	total := 2 // {}
	for _, mb := range members {
		if total+mb.size > taskMetaMax {
			dropped++
			continue
		}
		total += mb.size
		kept[mb.key] = meta[mb.key]
	}
	enc, err = appendJSON(nil, kept)
	return kept, enc, dropped, err
}

// taskRun is a task about to run here: its slot and the context its tool
// runs under.
type taskRun struct {
	id           string
	owner        ownerKey // the caller, whose running slot it takes
	ctx          context.Context
	cancel       context.CancelCauseFunc
	stopDeadline context.CancelFunc
}

// prepareRun takes a running slot for task id (stored, or about to be,
// from version known), whose tool runs detached from the request ctx
// until it ends, the task is cancelled or stopped, or its time to live
// nearly runs out (the rest is left for storing the outcome). tr is what
// the transport said of the request (m.tr): the request is answered before
// the tool ends, so the tool's Exchange keeps that much of it, and neither
// the request itself nor its stream.
func (s *Server) prepareRun(ctx context.Context, tr transport, id string, known uint64, expires time.Time) (*taskRun, error) {
	e := s.tasks
	margin := min(e.ttl/10, time.Minute)
	ctx = ContextWithExchange(ctx, &Exchange{ProtocolVersion: tr.version, Transport: tr.name})
	run, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run, stop := context.WithDeadline(run, expires.Add(-margin))
	owner := taskOwner(ctx)
	if !e.quota.take(owner) {
		stop()
		cancel(nil)
		return nil, e.quota.limitError()
	}
	if err := e.reserve(id, known, cancel); err != nil {
		e.quota.give(owner)
		stop()
		cancel(nil)
		if errors.Is(err, errShutdown) {
			return nil, &taskStoreError{err}
		}
		return nil, err
	}
	return &taskRun{id: id, owner: owner, ctx: run, cancel: cancel, stopDeadline: stop}, nil
}

// abandon gives back the slot of a run that does not start.
func (s *Server) abandon(tr *taskRun) {
	s.tasks.quota.give(tr.owner)
	s.tasks.release(tr.id)
	tr.stopDeadline()
	tr.cancel(nil)
}

// launch runs the stored task rec in a goroutine of its own: run is the
// rest of the call's path, execute for a call validated before it was
// stored, validateExecute for a task resumed with the client's input.
func (s *Server) launch(tr *taskRun, rec *tasks.Record, req *Request, run ToolHandler) {
	req.c.runAsTask(rec.ID)
	s.tasks.activate(rec) // stored: from now on its lease is renewed
	go func() {
		defer s.tasks.quota.give(tr.owner)
		defer s.tasks.release(tr.id)
		defer tr.cancel(nil)
		defer tr.stopDeadline()
		defer func() {
			if r := recover(); r != nil {
				s.tasks.Panicked(tr.ctx, rec, req.Name, req.Caller.Principal, r)
			}
		}()
		s.runTask(tr.ctx, rec, req, run)
	}()
}

// runTask runs a task's tool and stores what came of it.
func (s *Server) runTask(ctx context.Context, rec *tasks.Record, req *Request, run ToolHandler) {
	e := s.tasks
	res, err := run(ctx, req)
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errTaskCancelled), errors.Is(cause, errTaskStopped), errors.Is(cause, errTaskLost):
		return // cancelled, failed elsewhere or lost; the store (or the ledger) already says so
	case errors.Is(cause, errShutdown):
		res, err = nil, &Error{Code: CodeInternalError, Message: "Internal error: the server running the task shut down"}
	}
	settle, summary := s.settleTask(ctx, req, rec.Round, res, err)
	stored, err := s.tasks.StoreOutcome(context.WithoutCancel(ctx), rec, settle)
	level, msg := slog.LevelInfo, "mcp: task "+summary
	switch {
	case errors.Is(err, errTaskLost):
		return // logged at ERROR as lost
	case errors.Is(err, tasks.ErrNotFound):
		level, msg = slog.LevelWarn, "mcp: task expired before its outcome was stored"
	case err != nil:
		level, msg = slog.LevelError, "mcp: storing a task's outcome failed until the task expired; the outcome is lost"
	case stored.Status == tasks.Cancelled:
		msg = "mcp: task cancelled"
	}
	attrs := []slog.Attr{slog.String("task", rec.ID), slog.String("tool", req.Name),
		slog.String("principal", req.Caller.Principal), slog.Duration("duration", e.now().Sub(rec.Updated))}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.logger.LogAttrs(ctx, level, msg, attrs...)
}

// settleTask turns what a task's tool returned into the change to store
// (applied to the task as stored, still working in round round) and a word
// for the log.
func (s *Server) settleTask(ctx context.Context, req *Request, round int, res *Result, err error) (func(*tasks.Record), string) {
	var need *InputRequired
	var ae *ArgumentError
	if errors.As(err, &need) {
		return s.settleInput(ctx, req, round, need)
	}
	if errors.As(err, &ae) {
		res, err = ErrorResult(ae.Error()), nil // as at once from 2025-11-25 on (SEP-1303)
	}
	if err != nil {
		rpc := s.rpcError(ctx, err)
		return func(r *tasks.Record) {
			failTask(r, rpc, "Tool execution failed: "+rpc.Message)
		}, "failed"
	}
	b, encErr := appendResultCapped(make([]byte, 0, 256), res, s.maxRes)
	if encErr != nil && !errors.Is(encErr, errOverCap) {
		rpc := s.rpcError(ctx, fmt.Errorf("tool %q: encoding the result: %w", req.Name, encErr))
		return func(r *tasks.Record) { failTask(r, rpc, "Tool execution failed: "+rpc.Message) }, "failed"
	}
	if encErr != nil || (s.maxRes > 0 && len(b) > s.maxRes) {
		b = s.overCapResult(ctx, b, req.Name, res)
	}
	b = closeTaskResult(b)
	return func(r *tasks.Record) {
		r.Status, r.StatusMessage, r.Result = tasks.Completed, "", b
		r.Error, r.InputRequests, r.InputResponses, r.State, r.Owner = nil, nil, nil, nil, ""
	}, "completed"
}

// settleInput stores a task's requests for input (SEP-2322 requests,
// surfaced by tasks/get and answered with tasks/update). Their keys carry
// the round, so that no key is used twice in a task's lifetime.
func (s *Server) settleInput(ctx context.Context, req *Request, round int, need *InputRequired) (func(*tasks.Record), string) {
	fail := func(rpc *Error) (func(*tasks.Record), string) {
		return func(r *tasks.Record) { failTask(r, rpc, "Tool execution failed: "+rpc.Message) }, "failed"
	}
	if len(need.Requests) == 0 {
		return fail(s.rpcError(ctx, fmt.Errorf("tool %q returned InputRequired without requests in a task", req.Name)))
	}
	requests := make(map[string]json.RawMessage, len(need.Requests))
	missing := map[string]any{}
	keys := make([]string, 0, len(need.Requests))
	for k, ir := range need.Requests {
		c := ir.capability()
		if c == "" {
			return fail(s.rpcError(ctx, fmt.Errorf("tool %q: input request %q has unknown method %q", req.Name, k, ir.Method)))
		}
		if !req.ClientSupports(c) {
			missing[c] = map[string]any{}
		}
		enc, err := json.Marshal(ir)
		if err != nil {
			return fail(s.rpcError(ctx, fmt.Errorf("tool %q: input request %q: %w", req.Name, k, err)))
		}
		requests[inputKey(k, round+1)] = enc
		keys = append(keys, k+" ("+ir.Method+")")
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(missing))
		for c := range missing {
			names = append(names, c)
		}
		sort.Strings(names)
		return fail(&Error{Code: CodeMissingClientCapability,
			Message: "Missing required client capability: " + strings.Join(names, ", "),
			Data:    map[string]any{"requiredCapabilities": missing}})
	}
	sort.Strings(keys)
	return func(r *tasks.Record) {
		r.Status, r.StatusMessage = tasks.InputRequired, shortenMessage("Waiting for input: "+strings.Join(keys, ", "))
		r.Round, r.InputRequests, r.InputResponses, r.State, r.Owner = round+1, requests, nil, need.State, ""
	}, "waiting for input"
}

// inputKey is the key of a tool's input request key in a task's round:
// unique over the task's lifetime.
func inputKey(key string, round int) string {
	return fmt.Sprintf("%s#%d", key, round)
}

// toolKey undoes inputKey.
func toolKey(key string) string {
	if i := strings.LastIndexByte(key, '#'); i >= 0 {
		return key[:i]
	}
	return key
}

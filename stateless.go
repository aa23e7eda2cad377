// The methods that the 2026-07-28 revision adds to the stateless protocol:
// server/discover, subscriptions/listen, and the result fields that revision
// puts on every answer.

package mcp

import (
	"context"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// changes returns the source of tool-list changes, or nil.
func (s *Server) changes() ChangeNotifier {
	if s.opts.Changes != nil {
		return s.opts.Changes
	}
	cn, _ := s.reg.(ChangeNotifier)
	return cn
}

// discover answers server/discover: the versions served (newest first), the
// capabilities and the server's identity.
func (s *Server) discover(_ context.Context, m *message) ([]byte, error) {
	b := appendDiscoverResult(nil, &discoverResult{Versions: s.versions, ListChanged: s.changes() != nil,
		Tasks: s.tasks != nil, Views: s.servesViews(), Instructions: s.opts.Instructions})
	b = s.appendCacheable(b)
	b = s.appendCompleteResult(b, false)
	return m.respond(b), nil
}

// appendCacheable appends the CacheableResult fields of 2026-07-28.
func (s *Server) appendCacheable(b []byte) []byte {
	return appendCacheable(b, s.opts.ListTTL, s.opts.CacheScope)
}

// appendCompleteResult appends resultType and, unless the result carries its
// own _meta, the server's identity.
func (s *Server) appendCompleteResult(b []byte, hasMeta bool) []byte {
	return appendComplete(b, s.infoRaw, hasMeta)
}

// withServerInfo returns res with the server's identity in its _meta (a
// copy when res has a _meta of its own).
func (s *Server) withServerInfo(res *Result) *Result {
	if len(res.Meta) == 0 {
		return res
	}
	cp := *res
	cp.Meta = make(map[string]any, len(res.Meta)+1)
	for k, v := range res.Meta {
		cp.Meta[k] = v
	}
	cp.Meta[metaServerInfo] = rawJSONValue(s.infoRaw)
	return &cp
}

// listen serves subscriptions/listen: it acknowledges the filter, then sends
// notifications/tools/list_changed on every change of the tool list and
// notifications/tasks on every change of the tasks it follows (see
// subscribeTasks) until the client goes away (ctx is done), and answers
// with a completion result.
// The stream is the transport's: without one (Exchange.Notify nil) the
// request is refused.
func (s *Server) listen(ctx context.Context, m *message) ([]byte, error) {
	filter, ok := m.params["notifications"].(map[string]any)
	if !ok {
		return nil, invalidParams("notifications must be an object")
	}
	notify := m.tr.notify
	if notify == nil {
		return nil, &Error{Code: CodeInvalidRequest,
			Message: "subscriptions/listen needs a streaming response: send Accept: text/event-stream"}
	}
	wantTools, _ := filter["toolsListChanged"].(bool)
	cn := s.changes()
	wantTools = wantTools && cn != nil

	// Watch before acknowledging, so that no change after the
	// acknowledgement can be missed.
	var changed chan struct{}
	if wantTools {
		changed = make(chan struct{}, 1)
		stop := cn.Watch(func() {
			select {
			case changed <- struct{}{}:
			default: // a notification is already pending
			}
		})
		defer stop()
	}
	sub, err := s.subscribeTasks(ctx, m, filter)
	if err != nil {
		return nil, err
	}
	defer sub.close()
	ack := listenAck{ID: m.id, ToolsListChanged: wantTools}
	var wake <-chan tasks.Change
	var tick <-chan time.Time
	if sub != nil {
		ack.Tasks, ack.TaskIDs = true, sub.agreed
		wake, tick = sub.wake, sub.tick.C
	}
	if err := notify("notifications/subscriptions/acknowledged", appendListenAck(nil, &ack)); err != nil {
		return nil, err
	}
	note := appendListenNote(nil, m.id)
	if sub != nil {
		err = sub.refreshAll(ctx, notify)
	}
	for err == nil {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-changed:
			err = notify("notifications/tools/list_changed", note)
		case ch := <-wake:
			err = sub.changed(ctx, ch, notify)
		case <-tick:
			err = sub.refreshAll(ctx, notify)
		}
	}
	return m.respond(appendListenResult(nil, m.id, s.infoRaw)), nil
}

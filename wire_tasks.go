package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// The wire shapes of the Tasks extension (SEP-2663), named and tested as
// those of wire.go are (TestWireShapes): the answer that creates a task,
// tasks/get, the acknowledgement of tasks/update and tasks/cancel, the
// params of notifications/tasks and the result a completed task keeps.
// Results are appended open, as in wire.go.

// metaIgnoredInputs names, in a tasks/update acknowledgement, the
// inputResponses keys that answered nothing outstanding (SEP-2663: ignored).
const metaIgnoredInputs = "io.github.embedmcp/ignoredInputResponses"

// appendCreateTaskResult appends the open CreateTaskResult of a tools/call
// that became task rec: resultType "task", the Task and the server's
// identity (serverInfo, encoded).
func appendCreateTaskResult(b []byte, rec *tasks.Record, serverInfo []byte) []byte {
	b = append(b, `{"resultType":"task",`...)
	b = appendTaskFields(b, rec)
	return appendServerInfoMeta(b, serverInfo)
}

// appendGetTaskResult appends the open answer to tasks/get: complete, the
// DetailedTask of rec and the server's identity.
func appendGetTaskResult(b []byte, rec *tasks.Record, serverInfo []byte) []byte {
	b = append(b, `{"resultType":"complete",`...)
	b = appendDetailedTask(b, rec)
	return appendServerInfoMeta(b, serverInfo)
}

// appendTaskAck appends the open, empty answer to tasks/update and
// tasks/cancel: complete, with the server's identity and, when ignored is
// not empty, the inputResponses keys that answered nothing outstanding
// (written as given: the caller sorts, bounds and shortens them).
func appendTaskAck(b []byte, serverInfo []byte, ignored []string) []byte {
	b = append(b, `{"resultType":"complete","_meta":{"`+metaServerInfo+`":`...)
	b = append(b, serverInfo...)
	if len(ignored) > 0 {
		b = append(b, `,"`+metaIgnoredInputs+`":[`...)
		for i, k := range ignored {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendTaskNote appends the params of notifications/tasks: the _meta of
// the subscription (id: the raw id of its subscriptions/listen request) and
// the DetailedTask of rec.
func appendTaskNote(b []byte, id []byte, rec *tasks.Record) []byte {
	b = append(b, `{"_meta":`...)
	b = appendSubscriptionMeta(b, id)
	b = append(b, ',')
	b = appendDetailedTask(b, rec)
	return append(b, '}')
}

// closeTaskResult closes the open CallToolResult of a task's tool as the
// task keeps it (tasks.Record.Result): complete, without the server's
// identity, which tasks/get adds around it.
func closeTaskResult(b []byte) []byte { return append(b, `,"resultType":"complete"}`...) }

// appendTaskFields appends the members of the Task of rec, without braces.
func appendTaskFields(b []byte, rec *tasks.Record) []byte {
	b = append(b, `"taskId":`...)
	b = appendString(b, rec.ID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(rec.Status))
	if rec.StatusMessage != "" {
		b = append(b, `,"statusMessage":`...)
		b = appendString(b, rec.StatusMessage)
	}
	b = append(b, `,"createdAt":"`...)
	b = appendTime(b, rec.Created)
	b = append(b, `","lastUpdatedAt":"`...)
	b = appendTime(b, rec.Updated)
	b = append(b, `","ttlMs":`...)
	b = strconv.AppendInt(b, rec.Expires.Sub(rec.Created).Milliseconds(), 10)
	if rec.PollInterval > 0 {
		b = append(b, `,"pollIntervalMs":`...)
		b = strconv.AppendInt(b, max(rec.PollInterval.Milliseconds(), 1), 10)
	}
	return b
}

// appendDetailedTask appends the members of the DetailedTask of rec,
// without braces: its Task and, by status, its inputRequests, result or
// error.
func appendDetailedTask(b []byte, rec *tasks.Record) []byte {
	b = appendTaskFields(b, rec)
	switch rec.Status {
	case tasks.InputRequired:
		b = append(b, ',')
		b = appendInputRequests(b, rec.InputRequests)
	case tasks.Completed:
		b = append(b, `,"result":`...)
		b = append(b, rec.Result...)
	case tasks.Failed:
		b = append(b, `,"error":`...)
		b = append(b, rec.Error...)
	}
	return b
}

// appendInputRequests appends the inputRequests member: the encoded
// requests in the order of their keys.
func appendInputRequests(b []byte, reqs map[string]json.RawMessage) []byte {
	b = append(b, `"inputRequests":{`...)
	for i, k := range slices.Sorted(maps.Keys(reqs)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, reqs[k]...)
	}
	return append(b, '}')
}

// appendTime appends t in UTC as ISO 8601 with milliseconds.
func appendTime(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}

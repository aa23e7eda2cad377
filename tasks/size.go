package tasks

import (
	"bytes"
	"encoding/json"
	"strings"
	"unsafe"
)

// owner is the caller a stored task belongs to.
type owner struct{ principal, server string }

// Per-record costs of the memory store besides the record's own bytes:
// the memTask (which holds the Record), its entry in the tasks map
// (key and pointer, with the map's own overhead), and, per input request
// or response, a map entry.
const (
	memTaskOverhead  = int64(unsafe.Sizeof(memTask{})) + 64
	mapEntryOverhead = 64
	mapOverhead      = 64
)

// recordSize is every byte a record the store keeps holds: its strings,
// the capacity of its byte slices, its maps, and the store's own
// bookkeeping of it.
func recordSize(r *Record) int64 {
	n := memTaskOverhead
	n += int64(len(r.ID) + len(r.StatusMessage) + len(r.Principal) + len(r.Server) + len(r.Permission) +
		len(r.Tool) + len(r.ProtocolVersion) + len(r.Owner))
	n += int64(cap(r.Arguments) + cap(r.Meta) + cap(r.State) + cap(r.Result) + cap(r.Error))
	for _, m := range [...]map[string]json.RawMessage{r.InputRequests, r.InputResponses} {
		if m == nil {
			continue
		}
		n += mapOverhead
		for k, v := range m {
			n += int64(len(k)+cap(v)) + mapEntryOverhead
		}
	}
	return n
}

// keep returns a copy of rec that owns exactly the bytes it keeps: each byte
// slice and map value in an allocation of its own size, so that a slice of
// a larger buffer (a request body, a growing encoder's buffer) does not
// keep that buffer alive. Slices old (the stored record rec replaces, or
// nil) already holds are shared, not copied again.
func keep(rec, old *Record) *Record {
	c := *rec
	var prev Record
	if old != nil {
		prev = *old
	}
	c.Arguments = ownBytes(rec.Arguments, prev.Arguments)
	c.Meta = ownBytes(rec.Meta, prev.Meta)
	c.State = ownBytes(rec.State, prev.State)
	c.Result = ownBytes(rec.Result, prev.Result)
	c.Error = ownBytes(rec.Error, prev.Error)
	c.InputRequests = ownMap(rec.InputRequests, prev.InputRequests)
	c.InputResponses = ownMap(rec.InputResponses, prev.InputResponses)
	c.ID, c.StatusMessage, c.Principal, c.Server = ownString(rec.ID, prev.ID), ownString(rec.StatusMessage, prev.StatusMessage),
		ownString(rec.Principal, prev.Principal), ownString(rec.Server, prev.Server)
	c.Permission, c.Tool, c.Owner = ownString(rec.Permission, prev.Permission), ownString(rec.Tool, prev.Tool),
		ownString(rec.Owner, prev.Owner)
	return &c
}

// ownBytes returns b in an allocation of its own, unless it is old's.
func ownBytes(b, old []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == len(old) && cap(b) == cap(old) && unsafe.SliceData(b) == unsafe.SliceData(old) {
		return b
	}
	return bytes.Clone(b)
}

// ownString returns s in an allocation of its own, unless it is old's:
// a string made from a slice of a larger one keeps it alive.
func ownString(s, old string) string {
	if s == "" || (len(s) == len(old) && unsafe.StringData(s) == unsafe.StringData(old)) {
		return s
	}
	return strings.Clone(s)
}

// ownMap returns m with values of their own, a new map (so that neither
// side shares it), sharing the values old already holds under the same key.
func ownMap(m, old map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[strings.Clone(k)] = ownBytes(v, old[k])
	}
	return c
}

package mcp

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// compiled is what the Server needs of a tool, computed once per tool: its
// schemas resolved, its Mcp-Param headers, its tools/list descriptor.
type compiled struct {
	info    *ToolInfo
	in, out *compiledSchema // nil: any object / no output schema
	headers []headerParam   // x-mcp-header parameters of the input schema
	desc    []byte          // the tools/list descriptor
}

// toolInfo calls t.Info, turning a panic or a nil answer into an error.
func toolInfo(t Tool) (info *ToolInfo, err error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil tool", ErrInvalidToolName)
	}
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("%w: reading the tool's Info panicked: %v", ErrInvalidSchema, r)
		}
	}()
	if info = t.Info(); info == nil {
		return nil, fmt.Errorf("%w: tool has no Info", ErrInvalidToolName)
	}
	return info, nil
}

// compileTool checks a tool and computes what the Server needs of it.
func compileTool(t Tool) (*compiled, error) {
	info, err := toolInfo(t)
	if err != nil {
		return nil, err
	}
	return compileInfo(info)
}

func compileInfo(info *ToolInfo) (c *compiled, err error) {
	if !ValidToolName(info.Name) {
		return nil, fmt.Errorf("%w: %q must match [A-Za-z0-9_.-]{1,128}", ErrInvalidToolName, shorten(info.Name))
	}
	if !info.TaskSupport.valid() {
		return nil, fmt.Errorf("%w: tool %q: TaskSupport %q is none of TaskNever, TaskOptional, TaskRequired",
			ErrInvalidToolInfo, info.Name, shorten(string(info.TaskSupport)))
	}
	if err := checkToolUI(info); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil { // a schema jsonschema-go chokes on
			c, err = nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidSchema, info.Name, r)
		}
	}()
	c = &compiled{info: info}
	if c.in, err = compileSchema(info.Name, "input", info.InputSchema); err != nil {
		return nil, err
	}
	if c.out, err = compileSchema(info.Name, "output", info.OutputSchema); err != nil {
		return nil, err
	}
	if info.InputSchema != nil {
		// Clients exclude tools whose x-mcp-header annotations are invalid
		// (2026-07-28); refuse them here instead.
		if c.headers, err = headerParams(info.InputSchema); err != nil {
			return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidSchema, info.Name, err)
		}
	}
	if c.desc, err = encodeDescriptor(c); err != nil {
		return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidSchema, info.Name, err)
	}
	return c, nil
}

// toolCache holds the compiled form of the tools a Server has served, keyed
// by tool identity, whatever Registry they came from: a wrapped registry is
// served as fast as a ToolSet. Entries of tools that left the registry are
// swept once the cache holds twice as many entries as the registry has
// tools (plus a margin), so that churn cannot grow it without bound.
type toolCache struct {
	m       sync.Map     // cacheKey → *cacheEntry
	n       atomic.Int64 // entries in m
	limit   atomic.Int64 // sweep when n exceeds it
	sweepMu sync.Mutex
}

type cacheEntry struct {
	c   *compiled
	err error
}

const minCacheLimit = 64

// cacheKey is a tool's identity: the tool itself when it is a pointer (as
// tools almost always are), otherwise the *ToolInfo it returns, which must
// not change either.
func cacheKey(t Tool) (any, *ToolInfo, error) {
	if reflect.TypeOf(t).Kind() == reflect.Pointer {
		return t, nil, nil
	}
	info, err := toolInfo(t)
	return info, info, err
}

// get returns the compiled form of t, compiling it on first use.
func (tc *toolCache) get(t Tool, reg Registry) (*compiled, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil tool", ErrInvalidToolName)
	}
	key, info, err := cacheKey(t)
	if err != nil {
		return nil, err
	}
	if e, ok := tc.m.Load(key); ok {
		e := e.(*cacheEntry)
		return e.c, e.err
	}
	var c *compiled
	if info != nil {
		c, err = compileInfo(info)
	} else {
		c, err = compileTool(t)
	}
	if _, loaded := tc.m.LoadOrStore(key, &cacheEntry{c, err}); !loaded {
		if n := tc.n.Add(1); n > max(tc.limit.Load(), minCacheLimit) {
			tc.sweep(reg)
		}
	}
	return c, err
}

// sweep drops the entries of tools no longer in reg.
func (tc *toolCache) sweep(reg Registry) {
	if !tc.sweepMu.TryLock() {
		return // another goroutine is sweeping
	}
	defer tc.sweepMu.Unlock()
	live := map[any]bool{}
	for t := range reg.All() {
		if t == nil {
			continue
		}
		if key, _, err := cacheKey(t); err == nil {
			live[key] = true
		}
	}
	tc.m.Range(func(k, _ any) bool {
		if !live[k] {
			if _, deleted := tc.m.LoadAndDelete(k); deleted {
				tc.n.Add(-1)
			}
		}
		return true
	})
	tc.limit.Store(2*int64(len(live)) + minCacheLimit)
}

// size reports the number of cached tools (for tests).
func (tc *toolCache) size() int { return int(tc.n.Load()) }

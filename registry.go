package mcp

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/embedmcp/mcp/internal/watchers"
)

// A Registry holds tools by name. It only stores them: the Server looks a
// tool up, authorizes the caller, validates the arguments and runs the tool
// itself, the same way for every Registry, so that a registry (a wrapper
// adding tools from elsewhere, a view of a shared store) has nothing to get
// wrong and costs nothing extra.
//
// Implementations must be safe for concurrent use.
type Registry interface {
	// Lookup returns the tool registered under name.
	Lookup(name string) (Tool, bool)
	// All yields every registered tool once, sorted by name.
	All() iter.Seq[Tool]
}

// A ChangeNotifier reports changes of a set of tools; it is the one way to
// follow them. ToolSet implements it for changes made in this process; the
// Server uses it for subscriptions/listen, and tools that index other tools
// (enquiry, codetools) to know when to rebuild. Each replica of a service
// knows only its own ToolSet: hosts whose replicas share a registry (a
// database, a configuration service) implement ChangeNotifier over that
// shared source and set it in Options.Changes.
type ChangeNotifier interface {
	// Watch calls fn after every change until stop is called.
	Watch(fn func()) (stop func())
}

// ToolSet is the default Registry: a concurrency-safe set of tools, and of
// the views they name (ViewRegistry, MCP Apps), that can change at run
// time. Lookups take no lock; Register, Set, Remove and their View
// counterparts copy the set and swap it in atomically. The zero value is
// an empty set.
type ToolSet struct {
	mu  sync.Mutex // serialises writers
	cur atomic.Pointer[toolSnapshot]

	wmu      sync.Mutex // serialises change notifications, in order
	watchers watchers.Set[func()]
}

// toolSnapshot is an immutable view of the set.
type toolSnapshot struct {
	byName      map[string]Tool
	sorted      []Tool
	views       map[string]*compiledView // views.go
	viewsSorted []*compiledView
}

var emptySnapshot = &toolSnapshot{byName: map[string]Tool{}}

// NewToolSet returns an empty ToolSet.
func NewToolSet() *ToolSet { return new(ToolSet) }

func (ts *ToolSet) load() *toolSnapshot {
	if s := ts.cur.Load(); s != nil {
		return s
	}
	return emptySnapshot
}

// ValidToolName reports whether name matches [A-Za-z0-9_.-]{1,128}.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// checkTools compiles each tool once (name, schemas, x-mcp-header
// annotations, descriptor), so that a set only ever holds tools the Server
// can serve, and returns their names.
func checkTools(tools []Tool) ([]string, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		m, err := compileTool(t)
		if err != nil {
			return nil, err
		}
		names[i] = m.info.Name
	}
	return names, nil
}

// Register adds tools. It adds all of them or, on the first invalid or
// duplicate one, none, and returns an error that matches ErrInvalidToolName,
// ErrInvalidSchema, ErrInvalidToolInfo, ErrDuplicateTool or, for a tool
// naming a view the set does not hold (ToolInfo.View), ErrUnknownView.
func (ts *ToolSet) Register(tools ...Tool) error {
	return ts.change(tools, false)
}

// Set adds tools, replacing those registered under the same names, in one
// atomic change: a concurrent call sees either the old tool or the new one,
// never neither. Like Register it changes nothing when one of the tools is
// invalid, or when two of them share a name.
func (ts *ToolSet) Set(tools ...Tool) error {
	return ts.change(tools, true)
}

func (ts *ToolSet) change(tools []Tool, replace bool) error {
	names, err := checkTools(tools)
	if err != nil {
		return err
	}
	ts.mu.Lock()
	old := ts.load()
	next := make(map[string]Tool, len(old.byName)+len(tools))
	maps.Copy(next, old.byName)
	added := make(map[string]bool, len(tools))
	for i, t := range tools {
		name := names[i]
		_, exists := next[name]
		if added[name] || (exists && !replace) {
			ts.mu.Unlock()
			return fmt.Errorf("%w: %q is already registered", ErrDuplicateTool, name)
		}
		added[name] = true
		next[name] = t
	}
	if err := checkToolViews(tools, old.views); err != nil {
		ts.mu.Unlock()
		return err
	}
	ts.swapAndNotify(next, old.views)
	return nil
}

// Remove removes the named tools and reports how many were registered.
func (ts *ToolSet) Remove(names ...string) int {
	ts.mu.Lock()
	old := ts.load()
	n := 0
	for _, name := range names {
		if _, ok := old.byName[name]; ok {
			n++
		}
	}
	if n == 0 {
		ts.mu.Unlock()
		return 0
	}
	next := maps.Clone(old.byName)
	for _, name := range names {
		delete(next, name)
	}
	ts.swapAndNotify(next, old.views)
	return n
}

// swapAndNotify installs a new snapshot, releases ts.mu (held on entry) and
// calls the watchers. Notifications are delivered one change at a time, in
// the order of the changes: the watchers of a change run before the method
// that made it returns, and after those of every earlier change.
func (ts *ToolSet) swapAndNotify(byName map[string]Tool, views map[string]*compiledView) {
	sorted := slices.SortedFunc(maps.Values(byName), func(a, b Tool) int {
		return strings.Compare(a.Info().Name, b.Info().Name)
	})
	viewsSorted := slices.SortedFunc(maps.Values(views), func(a, b *compiledView) int {
		return strings.Compare(a.v.URI, b.v.URI)
	})
	ts.cur.Store(&toolSnapshot{byName: byName, sorted: sorted, views: views, viewsSorted: viewsSorted})
	ts.wmu.Lock()
	ts.mu.Unlock()
	defer ts.wmu.Unlock()
	for _, fn := range ts.watchers.List() {
		fn()
	}
}

// Watch implements ChangeNotifier: fn is called after every change of the
// set, of its tools or of its views, until stop is called. It runs in the
// goroutine that made the change, before the method that made it returns,
// one change at a time; it must return quickly and must not change the
// set itself.
func (ts *ToolSet) Watch(fn func()) (stop func()) {
	return ts.watchers.Add(fn)
}

// Lookup implements Registry.
func (ts *ToolSet) Lookup(name string) (Tool, bool) {
	t, ok := ts.load().byName[name]
	return t, ok
}

// All implements Registry: it yields the tools of the set as it was when
// All was called, sorted by name.
func (ts *ToolSet) All() iter.Seq[Tool] {
	sorted := ts.load().sorted
	return func(yield func(Tool) bool) {
		for _, t := range sorted {
			if !yield(t) {
				return
			}
		}
	}
}

// Len returns the number of registered tools.
func (ts *ToolSet) Len() int { return len(ts.load().sorted) }

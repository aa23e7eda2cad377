package mcptest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/embedmcp/mcp"
)

// CheckRegistry checks the contracts the Server relies on in reg, and
// reports every violation. The Server authorizes, validates and runs tools
// itself, so a Registry only has to store them right:
//
//   - list: All yields tools with an Info, sorted by name, without
//     duplicates, the same on a second pass.
//   - lookup: Lookup finds every listed tool under its name, and not an
//     unknown name.
//   - register: every tool is one a ToolSet accepts (a valid name, schemas
//     that compile), so the Server can serve it.
func CheckRegistry(reg mcp.Registry) error {
	var errs []error
	fail := func(tool, rule, format string, args ...any) {
		errs = append(errs, &Violation{Tool: tool, Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	var names []string
	var tools []mcp.Tool
	for t := range reg.All() {
		var in *mcp.ToolInfo
		if t != nil {
			in, _ = info(t)
		}
		if in == nil {
			fail("", "list", "tool %d of All has no Info", len(names))
			return errors.Join(errs...)
		}
		names = append(names, in.Name)
		tools = append(tools, t)
	}
	if !slices.IsSorted(names) {
		fail("", "list", "not sorted by name: %s", strings.Join(names, ", "))
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		fail("", "list", "a name appears twice: %s", strings.Join(names, ", "))
	}
	var again []string
	for t := range reg.All() {
		if in, _ := info(t); in != nil {
			again = append(again, in.Name)
		}
	}
	if !slices.Equal(again, names) {
		fail("", "list", "a second pass over All yields other tools: [%s], then [%s]", strings.Join(names, ", "), strings.Join(again, ", "))
	}
	for i, n := range names {
		t, ok := reg.Lookup(n)
		if !ok || t == nil {
			fail(n, "lookup", "listed, but Lookup does not find it")
		} else if in, _ := info(t); in == nil || in.Name != n {
			fail(n, "lookup", "Lookup returns a tool with another name")
		}
		in, _ := info(tools[i]) // not nil: tools holds those with an Info
		if err := scratchSet(in).Register(tools[i]); err != nil {
			fail(n, "register", "the Server cannot serve it: %v", err)
		}
	}
	unknown := "mcptest.no-such-tool"
	if _, ok := reg.Lookup(unknown); ok {
		fail("", "lookup", "Lookup finds the unknown name %q", unknown)
	}
	return errors.Join(errs...)
}

// AuthCase is a question for CheckAuthorizer and the answer expected.
type AuthCase struct {
	Caller     mcp.Caller // who asks
	Permission string     // for what
	Allowed    bool       // the answer expected
}

// CheckAuthorizer checks az against cases and reports every violation:
//
//   - decision: the answer differs from the case's.
//   - panic: Allowed panicked.
//   - concurrent: asked the same questions from several goroutines at
//     once, az answered differently (run with -race to find data races).
//
// The context passed to Allowed carries the case's caller, as the Protocol
// passes it.
func CheckAuthorizer(az mcp.Authorizer, cases []AuthCase) error {
	if len(cases) == 0 {
		return &Violation{Rule: "decision", Detail: "no cases to check"}
	}
	var errs []error
	fail := func(rule, format string, args ...any) {
		errs = append(errs, &Violation{Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	ask := func(c AuthCase) (ok bool, panicked any) {
		defer func() { panicked = recover() }()
		return az.Allowed(mcp.ContextWithCaller(context.Background(), c.Caller), c.Caller, c.Permission), nil
	}
	describe := func(c AuthCase) string {
		return fmt.Sprintf("caller %q with grants %q asking for %q", c.Caller.Principal, c.Caller.Grants, c.Permission)
	}
	first := make([]bool, len(cases))
	for i, c := range cases {
		ok, p := ask(c)
		if p != nil {
			fail("panic", "%s: Allowed panicked: %v", describe(c), p)
			continue
		}
		first[i] = ok
		if ok != c.Allowed {
			fail("decision", "%s: got %v, want %v", describe(c), ok, c.Allowed)
		}
	}
	const workers = 8
	var mu sync.Mutex
	changed := map[int]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i, c := range cases {
				if ok, p := ask(c); p == nil && ok != first[i] {
					mu.Lock()
					changed[i] = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, i := range slices.Sorted(func(yield func(int) bool) {
		for k := range changed {
			if !yield(k) {
				return
			}
		}
	}) {
		fail("concurrent", "%s: the answer changed when asked concurrently", describe(cases[i]))
	}
	return errors.Join(errs...)
}

package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/embedmcp/mcp"
)

// RegistryCheckOptions configure CheckRegistry. The zero value is usable.
type RegistryCheckOptions struct {
	// Callers are the callers whose views are checked. Default: a caller
	// with no grants, one with grant "*", and one per distinct tool
	// permission holding just that permission.
	Callers []mcp.Caller
}

// CheckRegistry checks the contracts the Protocol relies on in reg, as
// seen through az, and reports every violation. The rules are:
//
//   - list: List (asked with mcp.AllowAll) returns tools with an Info,
//     sorted by name, without duplicates.
//   - lookup: Lookup finds every listed tool under its name, and not an
//     unknown name.
//   - list-filter: for each caller, List returns exactly the tools whose
//     permission az allows that caller, in order.
//   - forbidden-call: for each caller, Call of a tool it may not use asks
//     az, fails with mcp.ErrUnknownTool and says nothing an unknown tool's
//     error would not (the errors are equal but for the name).
//   - unknown-call: Call of an unknown tool fails with mcp.ErrUnknownTool.
//
// CheckRegistry never calls a tool a caller is allowed to use; a registry
// that fails to deny a forbidden call runs the tool with {}.
func CheckRegistry(reg mcp.Registry, az mcp.Authorizer, opts *RegistryCheckOptions) error {
	var errs []error
	fail := func(tool, rule, format string, args ...any) {
		errs = append(errs, &Violation{Tool: tool, Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	ctx := context.Background()
	admin := Caller("mcptest-admin", "*")
	all := reg.List(Context(ctx, admin, ""), mcp.AllowAll, admin)
	var names, perms []string
	permOf := map[string]string{}
	for i, t := range all {
		var in *mcp.ToolInfo
		if t != nil {
			in, _ = info(t)
		}
		if in == nil {
			fail("", "list", "tool %d of the list has no Info", i)
			return errors.Join(errs...)
		}
		names = append(names, in.Name)
		perms = append(perms, in.Permission)
		permOf[in.Name] = in.Permission
	}
	if !slices.IsSorted(names) {
		fail("", "list", "not sorted by name: %s", strings.Join(names, ", "))
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		fail("", "list", "a name appears twice: %s", strings.Join(names, ", "))
	}
	for _, n := range names {
		t, ok := reg.Lookup(n)
		if !ok || t == nil {
			fail(n, "lookup", "listed, but Lookup does not find it")
		} else if in, _ := info(t); in == nil || in.Name != n {
			fail(n, "lookup", "Lookup returns a tool with another name")
		}
	}
	unknown := "mcptest.no-such-tool"
	if _, ok := reg.Lookup(unknown); ok {
		fail("", "lookup", "Lookup finds the unknown name %q", unknown)
	}

	callers := opts.callers(perms)
	for _, c := range callers {
		cctx := Context(ctx, c, "")
		who := fmt.Sprintf("caller %q with grants %q", c.Principal, c.Grants)
		var want []string
		for _, n := range slices.Sorted(slices.Values(names)) {
			if az.Allowed(cctx, c, permOf[n]) {
				want = append(want, n)
			}
		}
		var got []string
		for _, t := range reg.List(cctx, az, c) {
			if in, _ := info(t); in != nil {
				got = append(got, in.Name)
			}
		}
		if !slices.Equal(got, want) {
			fail("", "list-filter", "%s: List returned [%s], want [%s]", who, strings.Join(got, ", "), strings.Join(want, ", "))
		}
		_, errUnknown := reg.Call(cctx, az, mcp.NewRequest(c, unknown, nil))
		if !errors.Is(errUnknown, mcp.ErrUnknownTool) {
			fail("", "unknown-call", "%s: Call of %q returned %v, want an error matching mcp.ErrUnknownTool", who, unknown, errUnknown)
			errUnknown = nil
		}
		for _, n := range names {
			if slices.Contains(want, n) {
				continue
			}
			rec := Record(az)
			res, err := reg.Call(cctx, rec, mcp.NewRequest(c, n, json.RawMessage("{}")))
			if !slices.Contains(rec.Permissions(), permOf[n]) {
				fail(n, "forbidden-call", "%s: Call did not ask the authorizer about %q", who, permOf[n])
			}
			switch {
			case err == nil:
				fail(n, "forbidden-call", "%s may not use the tool, yet Call returned a result (%s)", who, resultSummary(res))
			case !errors.Is(err, mcp.ErrUnknownTool):
				fail(n, "forbidden-call", "%s: Call returned %v, want an error matching mcp.ErrUnknownTool", who, err)
			case errUnknown != nil && strings.ReplaceAll(err.Error(), n, "NAME") != strings.ReplaceAll(errUnknown.Error(), unknown, "NAME"):
				fail(n, "forbidden-call", "%s: Call returned %q, which tells it apart from an unknown tool (%q)", who, err, errUnknown)
			}
		}
	}
	return errors.Join(errs...)
}

func (o *RegistryCheckOptions) callers(perms []string) []mcp.Caller {
	if o != nil && len(o.Callers) > 0 {
		return o.Callers
	}
	out := []mcp.Caller{Caller("mcptest-nobody"), Caller("mcptest-all", "*")}
	perms = slices.Clone(perms)
	slices.Sort(perms)
	for _, p := range slices.Compact(perms) {
		if p != "" {
			out = append(out, Caller("mcptest-"+p, p))
		}
	}
	return out
}

// AuthCase is a question for CheckAuthorizer and the answer expected.
type AuthCase struct {
	Caller     mcp.Caller
	Permission string
	Allowed    bool
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
		return az.Allowed(Context(context.Background(), c.Caller, ""), c.Caller, c.Permission), nil
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

// Package symfixture drives the admin fixture from another package, so
// that admin's functions are inlined across packages.
package symfixture

import (
	"fmt"

	"github.com/embedmcp/mcp/codetools/internal/symfixture/admin"
)

// Checks collects checks so that their closures are not optimized away.
var Checks []func(string) bool

// Keyed and KeyFuncs hold what Wire's call of Keys returned.
var (
	Keyed    []string
	KeyFuncs []func() string
)

// Keys returns the keys of xs through admin.KeyFunc, inlined into it: one
// closure it calls (inlined too), one it returns. Wire instantiates it
// with an interface type.
//
//go:noinline
func Keys[T admin.Keyer](xs []T) (keys []string, fns []func() string) {
	for _, x := range xs {
		keys = append(keys, admin.KeyFunc(x)())
		fns = append(fns, admin.KeyFunc(x))
	}
	return keys, fns
}

// Wire inlines admin.RequireToken and admin.Triple, takes a method value
// and instantiates admin.Map, returning what it built.
//
//go:noinline
func Wire(secret string, n int) (check, method func(string) bool, strs []string, tripled int) {
	check = admin.RequireToken(secret)
	t := &admin.Token{Secret: secret}
	method = t.Check
	strs = admin.Map([]int{n, n + 1}, func(i int) string { return fmt.Sprint(i) })
	Checks = append(Checks, check, method)
	Keyed, KeyFuncs = Keys([]admin.Keyer{admin.Token{Secret: secret}})
	return check, method, strs, admin.Triple(n)
}

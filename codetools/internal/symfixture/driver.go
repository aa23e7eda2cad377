// Package symfixture drives the admin fixture from another package, so
// that admin's functions are inlined across packages.
package symfixture

import (
	"fmt"

	"github.com/embedmcp/mcp/codetools/internal/symfixture/admin"
)

// Checks collects checks so that their closures are not optimized away.
var Checks []func(string) bool

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
	return check, method, strs, admin.Triple(n)
}

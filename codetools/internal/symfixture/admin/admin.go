// Package admin is a fixture for the attribution of closures, method
// values, generic instantiations and inlined code to their declarations.
// The codetools tests link it into their binary and check what the
// catalog says about each of its functions.
package admin

import "strings"

// Token is a bearer token checker.
type Token struct{ Secret string }

// RequireToken returns a check of the bearer token. It is small enough to
// be inlined, and its closure is then named after the caller.
func RequireToken(secret string) func(string) bool {
	t := Token{Secret: secret}
	return func(header string) bool {
		return strings.TrimPrefix(header, "Bearer ") == t.Secret
	}
}

// Check reports whether header holds the token; callers take it as a
// method value.
func (t *Token) Check(header string) bool { return header == t.Secret }

// Map applies f to each element of xs.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// Keyer is a constraint that is an interface: the shape of the
// instantiations over it is named with spaces ("go.shape.interface {
// Key() string }").
type Keyer interface{ Key() string }

// Key returns the token's secret as a cache key.
func (t Token) Key() string { return t.Secret }

// KeyFunc returns a function of x's key. Inlined into a generic caller,
// its closure is named after both instantiations (Keys[…].KeyFunc[…].func1).
func KeyFunc[T Keyer](x T) func() string {
	return func() string { return x.Key() }
}

// Triple exists in the binary only inlined into its callers.
func Triple(x int) int { return x * 3 }

// Hooks is initialized with a closure: code of the package initializer.
var Hooks = []func() int{
	func() int { return 7 },
}

// Started is closed by the goroutine init starts.
var Started = make(chan struct{})

func init() {
	go func() { close(Started) }()
}

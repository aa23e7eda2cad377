package codetools

import (
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"strings"
)

// Selection chooses the packages a snapshot or a catalog covers, by
// module and import path. The packages of the main module are always
// included; Deps, Modules and Std add others; Exclude removes packages
// from all of them. It is what mcpsnapshot's -deps, -modules, -std and
// -exclude flags set, and what Options.Packages applies to a catalog.
//
// A pattern is an import or module path in which "..." matches any
// string, as in the go command's package patterns: "github.com/aws/..."
// matches "github.com/aws" and every path below it.
type Selection struct {
	// Deps includes the packages of every dependency module.
	Deps bool `json:"deps,omitempty"`
	// Modules includes the packages of the dependency modules whose path
	// matches one of these patterns.
	Modules []string `json:"modules,omitempty"`
	// Std includes the standard library.
	Std bool `json:"std,omitempty"`
	// Exclude leaves out the packages whose import path, or whose
	// module's path, matches one of these patterns.
	Exclude []string `json:"exclude,omitempty"`
}

// Validate reports the first malformed pattern, wrapping
// ErrInvalidArgument.
func (s *Selection) Validate() error {
	for _, list := range [][]string{s.Modules, s.Exclude} {
		for _, p := range list {
			if p == "" || strings.ContainsAny(p, " \t\n\\") || strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
				return invalidf("package pattern %.80q is not an import path pattern", p)
			}
		}
	}
	return nil
}

// Includes reports whether the selection covers package pkg of module
// mod (empty for the standard library); main reports that mod is the
// main module.
func (s *Selection) Includes(pkg, mod string, main bool) bool {
	if matchAny(s.Exclude, pkg) || mod != "" && matchAny(s.Exclude, mod) {
		return false
	}
	switch {
	case main:
		return true
	case mod == "" && snapshot.IsStdPkg(pkg):
		return s.Std
	default:
		return s.Deps || matchAny(s.Modules, mod)
	}
}

// String formats the selection as mcpsnapshot flags.
func (s *Selection) String() string {
	var b strings.Builder
	if s.Deps {
		b.WriteString(" -deps")
	}
	if len(s.Modules) > 0 {
		fmt.Fprintf(&b, " -modules %s", strings.Join(s.Modules, ","))
	}
	if s.Std {
		b.WriteString(" -std")
	}
	if len(s.Exclude) > 0 {
		fmt.Fprintf(&b, " -exclude %s", strings.Join(s.Exclude, ","))
	}
	if b.Len() == 0 {
		return "main module only"
	}
	return b.String()[1:]
}

func matchAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if matchPattern(p, path) {
			return true
		}
	}
	return false
}

// matchPattern reports whether path matches pattern, in which "..."
// matches any string (slashes included) and a trailing "/..." also
// matches the empty string, so that "net/..." matches "net".
func matchPattern(pattern, path string) bool {
	if strings.HasSuffix(pattern, "/...") && path == strings.TrimSuffix(pattern, "/...") {
		return true
	}
	return matchWild(pattern, path)
}

func matchWild(pattern, s string) bool {
	i := strings.Index(pattern, "...")
	if i < 0 {
		return pattern == s
	}
	if !strings.HasPrefix(s, pattern[:i]) {
		return false
	}
	s, pattern = s[i:], pattern[i+3:]
	for j := 0; j <= len(s); j++ {
		if matchWild(pattern, s[j:]) {
			return true
		}
	}
	return false
}

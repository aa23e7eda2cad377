package codetools

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
)

// Priors order the code of an adopter's build: the host's main module
// first, then the modules its go.mod requires directly, then the other
// modules, then this library's own packages and the standard library,
// which a question about the host rarely means. A tier breaks ties among
// literal matches and scales term scores (tierWeight); this library's
// packages are not lowered when the query names them or a package filter
// scopes the search.
const (
	tierMain uint8 = iota
	tierDirect
	tierIndirect
	tierLibrary // this library (when it is not the main module) and the standard library
	numTiers
)

// libraryModule is the module path of this library.
const libraryModule = "github.com/embedmcp/mcp"

// tierWeight scales the term score of an entry by its tier.
var tierWeight = [numTiers]float64{1, 0.95, 0.85, 0.5}

// libraryPrior further scales the term score of this library's own code
// in an adopter's catalog (tier tierLibrary, outside the standard
// library), unless the query names the library or scopes the search to
// it: a question that matches nothing of the host well was still answered
// by an internal of this library ("pack booleans into bytes" by
// boundedjson.Describe, "why a transfer was cut off" by gofunc.TreeProbe).
// Against 1, 0.5 raises the ten tuning sets of searcheval from 368 to 370
// of 458 in the top 3; lower values change nothing more.
const libraryPrior = 0.5

// isLibraryPkg reports whether pkg is a package of this library.
func isLibraryPkg(pkg string) bool {
	return pkg == libraryModule || strings.HasPrefix(pkg, libraryModule+"/")
}

// tierOf returns the tier of an entry of package pkg in scope sc, given
// the main module and the modules required directly (nil when unknown:
// every module is then direct).
func tierOf(pkg string, sc scope, mainMod string, mods []snapshot.Module, direct map[string]bool) uint8 {
	switch {
	case sc == scMain:
		return tierMain
	case sc == scStd:
		return tierLibrary
	case isLibraryPkg(pkg) && mainMod != libraryModule:
		return tierLibrary
	case direct == nil:
		return tierDirect
	}
	if m, ok := snapshot.ModuleFor(mods, pkg); ok && direct[m.Path] {
		return tierDirect
	}
	return tierIndirect
}

// directRequires returns the modules the main module's go.mod requires
// without an "// indirect" comment, read from the snapshot; nil when the
// snapshot does not hold that go.mod.
func directRequires(s *snapshot.Snapshot) map[string]bool {
	if s == nil || s.MainMod == "" {
		return nil
	}
	for _, m := range s.Manifest.Modules {
		if m.Path != s.MainMod {
			continue
		}
		for _, f := range m.Files {
			if path.Base(strings.TrimSuffix(f.Path, ".txt")) != "go.mod" {
				continue
			}
			data, err := fs.ReadFile(s.FS, f.Path)
			if err != nil || len(data) > 1<<20 {
				return nil
			}
			return parseRequires(string(data))
		}
	}
	return nil
}

// parseRequires returns the module paths of the require directives of a
// go.mod file that are not marked "// indirect".
func parseRequires(gomod string) map[string]bool {
	out := map[string]bool{}
	block := false
	for line := range strings.Lines(gomod) {
		line = strings.TrimSpace(line)
		switch {
		case block && strings.HasPrefix(line, ")"):
			block = false
			continue
		case strings.HasPrefix(line, "require ("):
			block = true
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimSpace(strings.TrimPrefix(line, "require "))
		case !block:
			continue
		}
		code, comment, _ := strings.Cut(line, "//")
		f := strings.Fields(code)
		if len(f) >= 2 && !strings.Contains(comment, "indirect") {
			out[strings.Trim(f[0], `"`)] = true
		}
	}
	return out
}

// namesLibrary reports whether a query names this library: its module's
// words (mcp, embedmcp) or one of its package paths.
func namesLibrary(query string) bool {
	q := strings.ToLower(query)
	return strings.Contains(q, "embedmcp") || strings.Contains(q, libraryModule) ||
		wordIn(q, "mcp")
}

// wordIn reports whether w occurs in s as a whole word.
func wordIn(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdentByte(s[j-1])
		after := j+len(w) == len(s) || !isIdentByte(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// exactID returns the entry whose id is s, or that a function symbol s of
// the running binary (a closure, a method value) was attributed to.
func (x *catalogIndex) exactID(s string) (int, bool) {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].id >= s })
	if i < len(x.entries) && x.entries[i].id == s {
		return i, true
	}
	if e, ok := x.lookupSymbol(s); ok {
		return x.exactID(e.id)
	}
	return 0, false
}

// packageNames returns the names of the packages of pkgs whose name is
// not the last element of their import path: from the snapshot's
// manifest, else, for a major-version suffix (/v2), the element before it.
func packageNames(s *snapshot.Snapshot, pkgs map[string]scope) map[string]string {
	out := map[string]string{}
	if s != nil {
		for _, p := range s.Manifest.Packages {
			if p.Name != "" && p.Name != "main" && p.Name != path.Base(p.ImportPath) {
				out[p.ImportPath] = p.Name
			}
		}
	}
	for pkg := range pkgs {
		if _, ok := out[pkg]; ok {
			continue
		}
		dir, last := path.Split(pkg)
		if len(last) > 1 && last[0] == 'v' && gofunc.IsDigits(last[1:]) && dir != "" {
			out[pkg] = path.Base(strings.TrimSuffix(dir, "/"))
		}
	}
	return out
}

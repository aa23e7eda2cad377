package index

import (
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Priors order the code of an adopter's build: the host's main module
// first, then the modules its go.mod requires directly, then the other
// modules, then this library's own packages and the standard library,
// which a question about the host rarely means. A tier breaks ties among
// literal matches and scales term scores (tierWeight); this library's
// packages are not lowered when the query names them or a package filter
// scopes the search.
const (
	TierMain uint8 = iota
	TierDirect
	TierIndirect
	TierLibrary // this library (when it is not the main module) and the standard library
	numTiers
)

// libraryModule is the module path of this library.
const libraryModule = "github.com/embedmcp/mcp"

// TierWeight scales the term score of an entry by its tier.
var TierWeight = [numTiers]float64{1, 0.95, 0.85, 0.5}

// LibraryPrior further scales the term score of this library's own code
// in an adopter's catalog (tier tierLibrary, outside the standard
// library), unless the query names the library or scopes the search to
// it: a question that matches nothing of the host well was still answered
// by an internal of this library ("pack booleans into bytes" by
// boundedjson.Describe, "why a transfer was cut off" by gofunc.TreeProbe).
// Against 1, 0.5 raises the ten tuning sets of searcheval from 368 to 370
// of 458 in the top 3; lower values change nothing more.
const LibraryPrior = 0.5

// isLibraryPkg reports whether pkg is a package of this library.
func isLibraryPkg(pkg string) bool {
	return pkg == libraryModule || strings.HasPrefix(pkg, libraryModule+"/")
}

// tierOf returns the tier of an entry of package pkg in scope sc, given
// the main module and the modules required directly (nil when unknown:
// every module is then direct).
func tierOf(pkg string, sc Scope, mainMod string, mods []snapshot.Module, direct map[string]bool) uint8 {
	switch {
	case sc == ScopeMain:
		return TierMain
	case sc == ScopeStd:
		return TierLibrary
	case isLibraryPkg(pkg) && mainMod != libraryModule:
		return TierLibrary
	case direct == nil:
		return TierDirect
	}
	if m, ok := snapshot.ModuleFor(mods, pkg); ok && direct[m.Path] {
		return TierDirect
	}
	return TierIndirect
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
			return ParseRequires(string(data))
		}
	}
	return nil
}

// ParseRequires returns the module paths of the require directives of a
// go.mod file that are not marked "// indirect".
func ParseRequires(gomod string) map[string]bool {
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

// NamesLibrary reports whether a query names this library: its module's
// words (mcp, embedmcp) or one of its package paths.
func NamesLibrary(query string) bool {
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

// packageNames returns the names of the packages of pkgs whose name is
// not the last element of their import path: from the snapshot's
// manifest, else, for a major-version suffix (/v2), the element before it.
func packageNames(s *snapshot.Snapshot, pkgs map[string]Scope) map[string]string {
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

// Unexported is 1 for a declaration outside its package's API: an
// unexported name, or a method or member of an unexported type; 0
// otherwise. Between equal matches of a name in the same prior, the API
// comes first ((*PortRange).Validate before (*nilGenerator).Validate):
// a name pasted or asked for is most often the one callers use.
func Unexported(e *Entry) int { return unexportedName(e, EntryName(e)) }

// unexportedName is Unexported of e, whose name (EntryName) is n.
func unexportedName(e *Entry, n string) int {
	if e.Kind == KindPackage || n == "" {
		return 0
	}
	if r := ReceiverOf(e); r != "" && !isExported(r) || !isExported(n) {
		return 1
	}
	return 0
}

// isExported reports whether a Go name is exported (begins with an
// upper-case letter).
func isExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// Unlinked is 1 for a function or method that is not in the running
// binary's function table (inlined everywhere, removed by the linker, or
// not part of this build), and for a struct field or interface method; 0
// otherwise: between equal matches, the code that runs comes first, and
// a declaration before a member of the same name.
func Unlinked(e *Entry) int {
	if e.Member || (e.Kind == KindFunc || e.Kind == KindMethod) && e.Sources&SrcRuntime == 0 {
		return 1
	}
	return 0
}

// ExactID returns the entry whose id is s, or that a function symbol s of
// the running binary (a closure, a method value) was attributed to.
func (x *Index) ExactID(s string) (int, bool) {
	i := sort.Search(len(x.Entries), func(i int) bool { return x.Entries[i].ID >= s })
	if i < len(x.Entries) && x.Entries[i].ID == s {
		return i, true
	}
	if e, ok := x.LookupSymbol(s); ok {
		return x.ExactID(e.ID)
	}
	return 0, false
}

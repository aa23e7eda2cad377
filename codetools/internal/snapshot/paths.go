package snapshot

import (
	"path"
	"strings"
)

// Module is a module path and version.
type Module struct {
	Path, Version string
}

// ModuleFor returns the module in mods (longest path prefix) that
// contains package pkg.
func ModuleFor(mods []Module, pkg string) (Module, bool) {
	var best Module
	found := false
	for _, m := range mods {
		// pkg is m.Path or below it (no concatenation: this runs for
		// every package and file of a large build).
		in := strings.HasPrefix(pkg, m.Path) && (len(pkg) == len(m.Path) || pkg[len(m.Path)] == '/')
		if in && len(m.Path) >= len(best.Path) {
			best, found = m, true
		}
	}
	return best, found
}

// DisplayPath returns the path shown for file of package pkg. It never
// contains an absolute build-machine path: the standard library is shown
// as $GOROOT/src/<pkg>/<file>, dependency modules as
// <module>@<version>/<dir>/<file>, and other packages as <pkg>/<file>.
// Relative file names (from -trimpath builds) are kept unchanged.
func DisplayPath(file, pkg string, mods []Module, mainMod string) string {
	if file == "" || strings.HasPrefix(file, "<") {
		return file
	}
	if !IsAbs(file) {
		return file
	}
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if pkg == "" {
		return base
	}
	if IsStdPkg(pkg) {
		return "$GOROOT/src/" + pkg + "/" + base
	}
	if m, ok := ModuleFor(mods, pkg); ok && m.Path != mainMod && m.Version != "" && m.Version != "(devel)" {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, m.Path), "/")
		return path.Join(m.Path+"@"+m.Version, rel, base)
	}
	return pkg + "/" + base
}

// IsAbs reports whether p is an absolute path, of Unix or Windows.
func IsAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// IsStdPkg reports whether path looks like a standard library import path
// (no dot in its first element), as the go command decides.
func IsStdPkg(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != "main" && first != "command-line-arguments"
}

// Interner shares equal strings.
type Interner map[string]string

// Get returns the string equal to s that in holds, adding s first.
func (in Interner) Get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

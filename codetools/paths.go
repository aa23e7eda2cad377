package codetools

import (
	"path"
	"strings"
)

// modInfo is a module path and version.
type modInfo struct {
	path, version string
}

// moduleFor returns the module in mods (longest path prefix) that
// contains package pkg.
func moduleFor(mods []modInfo, pkg string) (modInfo, bool) {
	var best modInfo
	found := false
	for _, m := range mods {
		if (pkg == m.path || strings.HasPrefix(pkg, m.path+"/")) && len(m.path) >= len(best.path) {
			best, found = m, true
		}
	}
	return best, found
}

// displayPath returns the path shown for file of package pkg. It never
// contains an absolute build-machine path: the standard library is shown
// as $GOROOT/src/<pkg>/<file>, dependency modules as
// <module>@<version>/<dir>/<file>, and other packages as <pkg>/<file>.
// Relative file names (from -trimpath builds) are kept unchanged.
func displayPath(file, pkg string, mods []modInfo, mainMod string) string {
	if file == "" || strings.HasPrefix(file, "<") {
		return file
	}
	if !isAbs(file) {
		return file
	}
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if pkg == "" {
		return base
	}
	if isStdPkg(pkg) {
		return "$GOROOT/src/" + pkg + "/" + base
	}
	if m, ok := moduleFor(mods, pkg); ok && m.path != mainMod && m.version != "" && m.version != "(devel)" {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, m.path), "/")
		return path.Join(m.path+"@"+m.version, rel, base)
	}
	return pkg + "/" + base
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

package codetools

import (
	"runtime/debug"
	"strings"
)

// Module identifies a module version.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	Sum     string `json:"sum,omitempty"`
	// Replace is the path@version of the replacement, if any.
	Replace string `json:"replace,omitempty"`
}

// Build is the provenance of the running binary, from debug.ReadBuildInfo.
type Build struct {
	GoVersion string `json:"goVersion"`
	// Path is the import path of the main package.
	Path       string `json:"path"`
	MainModule Module `json:"mainModule"`
	// Module is the module that holds the entry, if known.
	Module      *Module `json:"module,omitempty"`
	VCS         string  `json:"vcs,omitempty"`
	VCSRevision string  `json:"vcsRevision,omitempty"`
	VCSTime     string  `json:"vcsTime,omitempty"`
	// VCSModified is "true" or "false" as stamped, or "" if not stamped.
	VCSModified string `json:"vcsModified,omitempty"`
	Trimpath    bool   `json:"trimpath"`
	GOOS        string `json:"goos,omitempty"`
	GOARCH      string `json:"goarch,omitempty"`
	Tags        string `json:"tags,omitempty"`
}

// buildState is the parsed build information.
type buildState struct {
	info    Build
	deps    map[string]Module
	mods    []modInfo // main module and dependencies
	mainPkg string
}

func newBuildState(bi *debug.BuildInfo) *buildState {
	st := &buildState{deps: map[string]Module{}}
	if bi == nil {
		return st
	}
	st.mainPkg = bi.Path
	st.info = Build{GoVersion: bi.GoVersion, Path: bi.Path, MainModule: toModule(&bi.Main)}
	st.mods = append(st.mods, modInfo{bi.Main.Path, bi.Main.Version})
	for _, d := range bi.Deps {
		m := toModule(d)
		st.deps[d.Path] = m
		st.mods = append(st.mods, modInfo{d.Path, d.Version})
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs":
			st.info.VCS = s.Value
		case "vcs.revision":
			st.info.VCSRevision = s.Value
		case "vcs.time":
			st.info.VCSTime = s.Value
		case "vcs.modified":
			st.info.VCSModified = s.Value
		case "-trimpath":
			st.info.Trimpath = s.Value == "true"
		case "GOOS":
			st.info.GOOS = s.Value
		case "GOARCH":
			st.info.GOARCH = s.Value
		case "-tags":
			st.info.Tags = s.Value
		}
	}
	return st
}

func toModule(m *debug.Module) Module {
	out := Module{Path: m.Path, Version: m.Version, Sum: m.Sum}
	if m.Replace != nil {
		out.Replace = m.Replace.Path
		if m.Replace.Version != "" {
			out.Replace += "@" + m.Replace.Version
		}
	}
	return out
}

// forPackage returns the build provenance with Module set for pkg.
func (st *buildState) forPackage(pkg string) *Build {
	b := st.info
	if m, ok := moduleFor(st.mods, pkg); ok {
		if m.path == st.info.MainModule.Path {
			mm := st.info.MainModule
			b.Module = &mm
		} else if d, ok := st.deps[m.path]; ok {
			b.Module = &d
		}
	}
	return &b
}

// isModulePath reports whether p is the path of a module in the build.
func (st *buildState) isModulePath(p string) bool {
	if strings.IndexByte(p, '.') < 0 {
		return false
	}
	for _, m := range st.mods {
		if m.path == p {
			return true
		}
	}
	return false
}

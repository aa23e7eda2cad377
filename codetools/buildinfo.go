package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"runtime/debug"
	"strings"
)

// Module identifies a module version.
type Module struct {
	Path    string `json:"path" jsonschema:"Module path."`
	Version string `json:"version,omitempty" jsonschema:"Module version."`
	Sum     string `json:"sum,omitempty" jsonschema:"Checksum from go.sum."`
	// Replace is the path@version of the replacement, or its directory
	// for a replacement by a local directory.
	Replace string `json:"replace,omitempty" jsonschema:"path@version of the replacement, or its local directory."`

	replacePath, replaceVersion string
}

// Build is the provenance of the running binary, from debug.ReadBuildInfo.
type Build struct {
	GoVersion string `json:"goVersion" jsonschema:"Go version the binary was built with."`
	// Path is the import path of the main package.
	Path       string `json:"path" jsonschema:"Import path of the main package."`
	MainModule Module `json:"mainModule" jsonschema:"Main module of the binary."`
	// Module is the module that holds the entry, if known.
	Module      *Module `json:"module,omitempty" jsonschema:"Module that holds the entry's package, if known."`
	VCS         string  `json:"vcs,omitempty" jsonschema:"Version control system, as stamped."`
	VCSRevision string  `json:"vcsRevision,omitempty" jsonschema:"VCS revision, as stamped."`
	VCSTime     string  `json:"vcsTime,omitempty" jsonschema:"VCS commit time, as stamped."`
	// VCSModified is "true" or "false" as stamped, or "" if not stamped.
	VCSModified string `json:"vcsModified,omitempty" jsonschema:"true or false as stamped; absent if not stamped."`
	Trimpath    bool   `json:"trimpath" jsonschema:"Whether the binary was built with -trimpath."`
	GOOS        string `json:"goos,omitempty" jsonschema:"Target GOOS."`
	GOARCH      string `json:"goarch,omitempty" jsonschema:"Target GOARCH."`
	Tags        string `json:"tags,omitempty" jsonschema:"Build tags, comma-separated."`
}

// buildState is the parsed build information.
type buildState struct {
	info    Build
	deps    map[string]Module
	mods    []snapshot.Module // main module and dependencies
	mainPkg string
}

func newBuildState(bi *debug.BuildInfo) *buildState {
	st := &buildState{deps: map[string]Module{}}
	if bi == nil {
		return st
	}
	st.mainPkg = bi.Path
	st.info = Build{GoVersion: bi.GoVersion, Path: bi.Path, MainModule: toModule(&bi.Main)}
	st.mods = append(st.mods, snapshot.Module{Path: bi.Main.Path, Version: bi.Main.Version})
	for _, d := range bi.Deps {
		m := toModule(d)
		st.deps[d.Path] = m
		st.mods = append(st.mods, snapshot.Module{Path: d.Path, Version: d.Version})
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
	if r := m.Replace; r != nil {
		out.replacePath, out.replaceVersion = r.Path, r.Version
		out.Replace = r.Path
		if r.Version != "" && r.Version != "(devel)" {
			out.Replace += "@" + r.Version
		}
		out.Sum = r.Sum
	}
	return out
}

// forPackage returns the build provenance with Module set for pkg.
func (st *buildState) forPackage(pkg string) *Build {
	b := st.info
	if m, ok := snapshot.ModuleFor(st.mods, pkg); ok {
		if m.Path == st.info.MainModule.Path {
			mm := st.info.MainModule
			b.Module = &mm
		} else if d, ok := st.deps[m.Path]; ok {
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
		if m.Path == p {
			return true
		}
	}
	return false
}

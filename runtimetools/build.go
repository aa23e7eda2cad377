package runtimetools

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/embedmcp/mcp"
)

const buildDescription = "Report how this process was built: Go version, main package and module, VCS revision, " +
	"commit time and whether the tree was modified, build settings (GOOS, GOARCH, CGO_ENABLED, -tags, -ldflags with -X " +
	"values redacted but versions, commits and dates...) and dependency versions, filterable by module path. Use it to " +
	"tell which build is deployed."

const buildSchema = `{"type":"object","properties":{` +
	`"module":{"type":"string","description":"Only dependencies whose module path contains this text (case-insensitive), e.g. \"grpc\"; their checksums are then shown too. At most 256 bytes."}},` +
	`"additionalProperties":false}`

const (
	maxModuleFilter = 256
	maxDeps         = 300
)

type buildArgs struct {
	Module string `json:"module,omitempty"`
}

type module struct {
	Path    string       `json:"path"`
	Version string       `json:"version,omitempty"`
	Sum     string       `json:"sum,omitempty"`
	Replace *replacement `json:"replace,omitempty" jsonschema:"the module that replaces it"`
}

type replacement struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	Sum     string `json:"sum,omitempty"`
}

type vcsInfo struct {
	System   string `json:"system,omitempty" jsonschema:"git, hg..."`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty" jsonschema:"commit time, RFC 3339"`
	Modified *bool  `json:"modified,omitempty" jsonschema:"the working tree had uncommitted changes"`
}

type setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type buildResult struct {
	GoVersion   string    `json:"goVersion" jsonschema:"the Go release that built the binary"`
	GOOS        string    `json:"goos"`
	GOARCH      string    `json:"goarch"`
	Path        string    `json:"path" jsonschema:"import path of the main package"`
	Main        module    `json:"main" jsonschema:"the main module; version (devel) for builds outside a module download"`
	VCS         *vcsInfo  `json:"vcs,omitempty" jsonschema:"version control information stamped by the go command"`
	Settings    []setting `json:"settings" jsonschema:"build settings other than vcs.*"`
	Deps        []module  `json:"deps" jsonschema:"dependency modules, sorted by path"`
	DepsTotal   int       `json:"depsTotal"`
	DepsMatched int       `json:"depsMatched" jsonschema:"dependencies matching module"`
	Truncated   bool      `json:"truncated" jsonschema:"more dependencies matched than are answered"`
}

func (s *state) buildTool() (mcp.Tool, error) {
	return newTool(buildSchema, mcp.ToolInfo{
		Name:         BuildToolName,
		Title:        "Build of this process",
		Description:  buildDescription,
		Permission:   PermissionRead,
		Annotations:  readOnly(),
		AdminSummary: "Lets an agent see the Go version, VCS revision, build settings and dependency versions of this binary.",
		AdminExample: `{"module":"jsonschema"}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Tell which build is running (revision, commit time, modified tree), which Go release built it, and which version of a dependency is linked in.",
			WhenNotToUse: []string{
				"Reading the code of that build - use code_search and code_definition.",
			},
			Details: "Read from debug.ReadBuildInfo. vcs is present when the go command stamped it (building inside a repository without -buildvcs=false).",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{}`), Outcome: "goVersion, main module, vcs revision and time, settings and every dependency."},
				{Arguments: json.RawMessage(`{"module":"jsonschema"}`), Outcome: "the linked version and checksum of github.com/google/jsonschema-go."},
			},
		},
	}, func(ctx context.Context, req *mcp.Request, in buildArgs) (buildResult, error) {
		if err := checkText(req, "/module", in.Module, maxModuleFilter); err != nil {
			return buildResult{}, err
		}
		read := debug.ReadBuildInfo
		if s.buildInfo != nil {
			read = s.buildInfo
		}
		bi, ok := read()
		if !ok {
			return buildResult{}, errors.New("runtimetools: this binary carries no build information (built without module support)")
		}
		return buildAnswer(bi, in.Module), nil
	})
}

// buildAnswer describes bi, with dependencies filtered by module.
func buildAnswer(bi *debug.BuildInfo, filter string) buildResult {
	res := buildResult{GoVersion: bi.GoVersion, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Path: bi.Path,
		Main: module{Path: bi.Main.Path, Version: bi.Main.Version}, Settings: []setting{}, Deps: []module{}}
	vcs := &vcsInfo{}
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs":
			vcs.System = st.Value
		case "vcs.revision":
			vcs.Revision = st.Value
		case "vcs.time":
			vcs.Time = st.Value
		case "vcs.modified":
			m := st.Value == "true"
			vcs.Modified = &m
		case "GOOS":
			res.GOOS = st.Value
		case "GOARCH":
			res.GOARCH = st.Value
		case "-ldflags":
			res.Settings = append(res.Settings, setting{st.Key, defaultSecrets.redactText(defaultSecrets.redactLdflags(st.Value))})
		default:
			if strings.HasPrefix(st.Key, "vcs.") {
				continue
			}
			res.Settings = append(res.Settings, setting{st.Key, redactSetting(st.Key, st.Value)})
		}
	}
	if *vcs != (vcsInfo{}) {
		res.VCS = vcs
	}
	f := lower(filter)
	res.DepsTotal = len(bi.Deps)
	for _, d := range bi.Deps {
		if f != "" && !containsFold(d.Path, f) && (d.Replace == nil || !containsFold(d.Replace.Path, f)) {
			continue
		}
		res.DepsMatched++
		if len(res.Deps) == maxDeps {
			res.Truncated = true
			continue
		}
		m := module{Path: d.Path, Version: d.Version}
		if f != "" {
			m.Sum = d.Sum
		}
		if d.Replace != nil {
			m.Replace = &replacement{Path: d.Replace.Path, Version: d.Replace.Version}
			if f != "" {
				m.Replace.Sum = d.Replace.Sum
			}
		}
		res.Deps = append(res.Deps, m)
	}
	return res
}

// redactSetting redacts a build setting's value as redactText does,
// except the settings the go command writes itself (DefaultGODEBUG,
// GOAMD64...), which hold no credentials and whose names would look like
// secrets ("x509keypairleaf=0").
func redactSetting(key, value string) string {
	if key == "DefaultGODEBUG" || strings.HasPrefix(key, "GO") {
		return value
	}
	return defaultSecrets.redactText(value)
}

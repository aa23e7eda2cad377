package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/embedmcp/mcp"
)

// Scenario is one recorded call, read from a txtar file
// <dir>/<tool>/<name>.txtar:
//
//	Title of the scenario, shown in the docs
//	Optional notes, shown under the title.
//	-- caller --
//	{"principal": "alice", "grants": ["examples.*"]}
//	-- fixture --
//	small-project
//	-- version --
//	2025-11-25
//	-- request --
//	{"text": "hello"}
//	-- response --
//	{ ...the expected answer, indented, volatile values masked... }
//
// Only request is required. caller (default ReplayOptions.Caller), fixture
// (the key of the ReplayOptions.Fixtures protocol to call; default the
// protocol given to Replay) and version (default
// ReplayOptions.ProtocolVersion) are optional; response is written by
// replaying with ReplayOptions.Update.
//
// A request is the arguments of a tools/call of the directory's tool, and
// its response is the tools/call result, or {"error": {...}} for a
// JSON-RPC error. A request that is a whole JSON-RPC message (it has a
// "jsonrpc" member) is sent as it is, for any method, and its response is
// the whole JSON-RPC response.
type Scenario struct {
	Path            string          // the file it was read from
	Tool            string          // the tool: the name of the file's directory
	Name            string          // the file's name without ".txtar"
	Title           string          // the comment's first line, or made from Name
	Notes           string          // the rest of the comment
	Caller          *mcp.Caller     // nil: none given
	Fixture         string          // "" when none is given
	ProtocolVersion string          // "" when none is given
	Request         json.RawMessage // the request section
	Response        json.RawMessage // the response section; empty when missing

	archive *archive
}

// scenarioSections are the sections a scenario file may hold.
var scenarioSections = []string{"caller", "fixture", "version", "request", "response"}

// callerJSON is the caller section.
type callerJSON struct {
	Principal string   `json:"principal"`
	Grants    []string `json:"grants,omitempty"`
	Server    string   `json:"server,omitempty"`
}

// ReadScenario reads one scenario file.
func ReadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Path = path
	s.Tool = filepath.Base(filepath.Dir(path))
	s.Name = strings.TrimSuffix(filepath.Base(path), ".txtar")
	if s.Title == "" {
		s.Title = strings.NewReplacer("-", " ", "_", " ").Replace(s.Name)
	}
	return s, nil
}

func parseScenario(data []byte) (*Scenario, error) {
	a := parseArchive(data)
	s := &Scenario{archive: a}
	comment := strings.TrimSpace(string(a.comment))
	s.Title, s.Notes, _ = strings.Cut(comment, "\n")
	s.Title, s.Notes = strings.TrimSpace(s.Title), strings.TrimSpace(s.Notes)
	seen := map[string]bool{}
	for _, f := range a.files {
		if !slices.Contains(scenarioSections, f.name) {
			return nil, fmt.Errorf("unknown section %q (want one of %s)", f.name, strings.Join(scenarioSections, ", "))
		}
		if seen[f.name] {
			return nil, fmt.Errorf("section %q appears twice", f.name)
		}
		seen[f.name] = true
		text := bytes.TrimSpace(f.data)
		switch f.name {
		case "caller":
			var c callerJSON
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				return nil, fmt.Errorf("caller section: %v (want {\"principal\": ..., \"grants\": [...], \"server\": ...})", err)
			}
			s.Caller = &mcp.Caller{Principal: c.Principal, Grants: c.Grants, Server: c.Server}
		case "fixture":
			s.Fixture = string(text)
		case "version":
			s.ProtocolVersion = string(text)
		case "request":
			if !json.Valid(text) {
				return nil, errors.New("mcptest: request section is not valid JSON")
			}
			s.Request = json.RawMessage(text)
		case "response":
			if len(text) > 0 && !json.Valid(text) {
				return nil, errors.New("mcptest: response section is not valid JSON")
			}
			s.Response = json.RawMessage(text)
		}
	}
	if s.Request == nil {
		return nil, errors.New("mcptest: no request section")
	}
	return s, nil
}

// IsRPC reports whether the request is a whole JSON-RPC message rather
// than the arguments of a tools/call.
func (s *Scenario) IsRPC() bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(s.Request, &probe) != nil {
		return false
	}
	_, ok := probe["jsonrpc"]
	return ok
}

// ReadScenarios reads every scenario of dir: the files <dir>/<tool>/*.txtar,
// sorted by tool and name.
func ReadScenarios(dir string) ([]*Scenario, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, err := fs.Glob(os.DirFS(filepath.Join(dir, e.Name())), "*.txtar")
		if err != nil {
			return nil, err
		}
		slices.Sort(files)
		for _, f := range files {
			s, err := ReadScenario(filepath.Join(dir, e.Name(), f))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, s)
		}
	}
	return out, errors.Join(errs...)
}

// withResponse returns the file's text with the response section set to
// resp, keeping the comment and the other sections as they were.
func (s *Scenario) withResponse(resp []byte) ([]byte, error) {
	a := &archive{comment: s.archive.comment}
	found := false
	for _, f := range s.archive.files {
		if f.name == "response" {
			f.data, found = resp, true
		}
		a.files = append(a.files, f)
	}
	if !found {
		a.files = append(a.files, archiveFile{name: "response", data: resp})
	}
	return a.format()
}

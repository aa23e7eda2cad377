package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/embedmcp/mcp"
)

// ReplayOptions configure Replay. The zero value is usable.
type ReplayOptions struct {
	// Caller calls the scenarios that have no caller section.
	Caller mcp.Caller
	// ProtocolVersion is the revision of the scenarios that have no version
	// section. Default mcp.Version20251125.
	ProtocolVersion string
	// Fixtures are the protocols scenarios name in their fixture section,
	// for instance servers over small projects. A scenario naming a fixture
	// missing here fails.
	Fixtures map[string]mcp.Protocol
	// Mask maps paths of volatile values (timings, timestamps, hashes of
	// build-dependent data) to the placeholders that replace them, before
	// comparing and before writing; for example
	// {"structuredContent.meta.serverMs": "<timing>", "**.observedAt":
	// "<time>"}. Paths are dot-separated keys and array indexes within the
	// response section, "*" matching one segment and "**" any number. The
	// "structuredContent." paths also apply to text content blocks holding
	// the JSON copy of structuredContent.
	Mask map[string]string
	// Update rewrites each scenario's response section with the answer
	// received instead of comparing. Wire it to a flag of your test binary:
	//
	//	var update = flag.Bool("update", false, "rewrite recorded calls and docs")
	Update bool
}

// Replay replays every scenario under dir (<dir>/<tool>/<name>.txtar, see
// Scenario) against p, each as a subtest named <tool>/<name>, and fails
// the subtest with a line diff when the answer differs from the recorded
// response, after masking. With opts.Update it rewrites the response
// sections instead. It fails t when dir holds no scenario.
func Replay(t *testing.T, p mcp.Protocol, dir string, opts *ReplayOptions) {
	t.Helper()
	var o ReplayOptions
	if opts != nil {
		o = *opts
	}
	scenarios, err := ReadScenarios(dir)
	if err != nil {
		t.Fatalf("reading recorded calls: %v", err)
	}
	if len(scenarios) == 0 {
		t.Fatalf("no recorded calls (<tool>/<name>.txtar) in %s", dir)
	}
	for _, s := range scenarios {
		t.Run(s.Tool+"/"+s.Name, func(t *testing.T) {
			diff, err := s.replay(t, p, &o)
			switch {
			case err != nil:
				t.Fatal(err)
			case diff != "":
				t.Errorf("%s: the answer changed (-recorded +now); if the change is intended, rerun with -update:\n%s", s.Path, diff)
			}
		})
	}
}

// replay runs s against p and compares, or rewrites its file in update
// mode. It returns the diff of a changed answer.
func (s *Scenario) replay(t testing.TB, p mcp.Protocol, o *ReplayOptions) (diff string, err error) {
	if o == nil {
		o = &ReplayOptions{}
	}
	got, err := s.run(t, p, o)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Path, err)
	}
	resultPath := []string(nil)
	if s.IsRPC() {
		resultPath = []string{"result"}
	}
	got, err = normalize(got, o.Mask, resultPath)
	if err != nil {
		return "", fmt.Errorf("%s: the answer is not JSON: %w", s.Path, err)
	}
	if o.Update {
		if s.Response != nil && bytes.Equal(bytes.TrimSpace(s.Response), got) {
			return "", nil
		}
		out, err := s.withResponse(got)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.Path, err)
		}
		if err := os.WriteFile(s.Path, out, 0o666); err != nil {
			return "", err
		}
		s.Response = got
		return "", nil
	}
	if s.Response == nil {
		return "", fmt.Errorf("%s: no response section; run the test with -update to record one", s.Path)
	}
	want, err := normalize(s.Response, o.Mask, resultPath)
	if err != nil {
		return "", fmt.Errorf("%s: response section: %w", s.Path, err)
	}
	return lineDiff(string(want)+"\n", string(got)+"\n"), nil
}

// run sends the scenario's request and returns the document to record.
func (s *Scenario) run(t testing.TB, p mcp.Protocol, o *ReplayOptions) ([]byte, error) {
	if s.Fixture != "" {
		fp, ok := o.Fixtures[s.Fixture]
		if !ok {
			return nil, fmt.Errorf("unknown fixture %q (ReplayOptions.Fixtures)", s.Fixture)
		}
		p = fp
	}
	copts := &ClientOptions{Caller: o.Caller, ProtocolVersion: o.ProtocolVersion}
	if s.Caller != nil {
		copts.Caller = *s.Caller
	}
	if s.ProtocolVersion != "" {
		copts.ProtocolVersion = s.ProtocolVersion
	}
	c := NewClient(t, p, copts)
	if s.IsRPC() {
		status, body := c.Raw(string(s.Request))
		if status != http.StatusOK && status != http.StatusAccepted && status != http.StatusBadRequest {
			return nil, fmt.Errorf("status %d: %s", status, shortText(body))
		}
		return body, nil
	}
	r, err := c.Do("tools/call", map[string]any{"name": s.Tool, "arguments": s.Request})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		e := struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data,omitempty"`
		}{r.Error.Code, r.Error.Message, r.Error.Data}
		return json.Marshal(map[string]any{"error": e})
	}
	return r.Result, nil
}

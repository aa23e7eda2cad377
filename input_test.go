package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type greetArgs struct {
	Lang string `json:"lang,omitempty"`
}

// greeter asks for the user's name, carrying the round count in its state,
// and greets once it has the answer.
func greeter(ts *ToolSet, t *testing.T) {
	t.Helper()
	_, err := AddTool(ts, ToolInfo{Name: "greet"}, func(_ context.Context, req *Request, in greetArgs) (struct {
		Greeting string `json:"greeting"`
	}, error) {
		var out struct {
			Greeting string `json:"greeting"`
		}
		raw, ok := req.InputResponse("user_name")
		if !ok {
			return out, &InputRequired{
				Requests: map[string]InputRequest{"user_name": Elicitation("What is your name?",
					map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})},
				State: []byte("round-1:" + in.Lang),
			}
		}
		var answer struct {
			Action  string `json:"action"`
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return out, err
		}
		out.Greeting = "Hello, " + answer.Content.Name + " (state " + string(req.State()) + ")"
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

const elicitCaps = `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`

func modernCall(args, extra, caps string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":` + args + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `}}}`)
}

func TestInputRequiredRoundTrip(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	s := NewServer(ts, AllowAll(), nil)
	alice := Caller{Principal: "alice"}

	status, body := s.Handle(context.Background(), alice, modernCall(`{"lang":"en"}`, "", elicitCaps))
	r := decodeRPC(t, body)
	if status != 200 || r.Result["resultType"] != "input_required" {
		t.Fatalf("round 1: %d %s", status, body)
	}
	reqs := r.Result["inputRequests"].(map[string]any)
	if reqs["user_name"].(map[string]any)["method"] != "elicitation/create" {
		t.Errorf("inputRequests = %v", reqs)
	}
	state, _ := r.Result["requestState"].(string)
	if state == "" || strings.Contains(state, "round-1") {
		t.Fatalf("requestState must be present and opaque, got %q", state)
	}

	retry := func(caller Caller, args, state string) rpc {
		extra := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}},"extra":{"x":1}},"requestState":"` + state + `"`
		_, body := s.Handle(context.Background(), caller, modernCall(args, extra, elicitCaps))
		return decodeRPC(t, body)
	}
	// Member order and spacing of the arguments do not matter.
	r = retry(alice, `{ "lang" : "en" }`, state)
	if r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("retry: %+v", r)
	}
	if g := r.Result["structuredContent"].(map[string]any)["greeting"]; g != "Hello, Ada (state round-1:en)" {
		t.Errorf("greeting = %v", g)
	}

	bad := []struct {
		name, args, state string
		caller            Caller
		want              string
	}{
		{"tampered", `{"lang":"en"}`, state + "-TAMPERED", alice, "invalid requestState"},
		{"bit flipped", `{"lang":"en"}`, flip(state), alice, "integrity check failed"},
		{"not ours", `{"lang":"en"}`, "AAAA", alice, "not a state this server issued"},
		{"other caller", `{"lang":"en"}`, state, Caller{Principal: "mallory"}, "another caller"},
		{"other arguments", `{"lang":"fr"}`, state, alice, "other arguments"},
	}
	for _, c := range bad {
		r := retry(c.caller, c.args, c.state)
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s: want -32602 mentioning %q, got %+v", c.name, c.want, r)
		}
	}
	// A state from another server (another key) is refused too.
	other := NewServer(ts, AllowAll(), &Options{StateKey: []byte("another key")})
	extra := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"` + state + `"`
	_, body = other.Handle(context.Background(), alice, modernCall(`{"lang":"en"}`, extra, elicitCaps))
	if r := decodeRPC(t, body); r.Error == nil || !strings.Contains(r.Error.Message, "integrity") {
		t.Errorf("state from another server: %s", body)
	}
}

func TestInputRequiredSharedKeyAcrossReplicas(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	key := []byte("shared by every replica")
	a := NewServer(ts, AllowAll(), &Options{StateKey: key})
	b := NewServer(ts, AllowAll(), &Options{StateKey: key})
	_, body := a.Handle(context.Background(), Caller{}, modernCall(`{}`, "", elicitCaps))
	state := decodeRPC(t, body).Result["requestState"].(string)
	extra := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}}},"requestState":"` + state + `"`
	_, body = b.Handle(context.Background(), Caller{}, modernCall(`{}`, extra, elicitCaps))
	if r := decodeRPC(t, body); r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("replica b could not open replica a's state: %s", body)
	}
}

func TestInputRequiredExpires(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	s := NewServer(ts, AllowAll(), &Options{StateTTL: time.Minute})
	clock := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s.sealer.now = func() time.Time { return clock }
	_, body := s.Handle(context.Background(), Caller{}, modernCall(`{}`, "", elicitCaps))
	state := decodeRPC(t, body).Result["requestState"].(string)
	extra := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}}},"requestState":"` + state + `"`
	clock = clock.Add(time.Minute) // the last instant it is valid
	if r := decodeRPC(t, second(s.Handle(context.Background(), Caller{}, modernCall(`{}`, extra, elicitCaps)))); r.Error != nil {
		t.Fatalf("state refused within its TTL: %+v", r.Error)
	}
	clock = clock.Add(time.Second)
	_, body = s.Handle(context.Background(), Caller{}, modernCall(`{}`, extra, elicitCaps))
	if r := decodeRPC(t, body); r.Error == nil || !strings.Contains(r.Error.Message, "expired") {
		t.Fatalf("expired state accepted: %s", body)
	}
}

func TestInputRequiredNeedsCapability(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	s := NewServer(ts, AllowAll(), nil)
	status, body := s.Handle(context.Background(), Caller{}, modernCall(`{}`, "", `"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`))
	r := decodeRPC(t, body)
	if status != 400 || r.Error == nil || r.Error.Code != CodeMissingClientCapability {
		t.Fatalf("elicitation without the capability: %d %s", status, body)
	}
	if _, ok := r.Error.Data["requiredCapabilities"].(map[string]any)["elicitation"]; !ok {
		t.Errorf("data = %v", r.Error.Data)
	}
}

func TestInputRequiredLegacyIsToolError(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	s := NewServer(ts, AllowAll(), nil)
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{}}}`))
	r := decodeRPC(t, body)
	if r.Error != nil || r.Result["isError"] != true {
		t.Fatalf("legacy: %s", body)
	}
	text := r.Result["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, "user_name (elicitation/create)") || !strings.Contains(text, "2026-07-28") {
		t.Errorf("legacy message = %q", text)
	}
}

// flip changes one character in the middle of a base64url token, keeping it
// decodable.
func flip(token string) string {
	b := []byte(token)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestInputResponsesMustBeObjects(t *testing.T) {
	ts := NewToolSet()
	greeter(ts, t)
	s := NewServer(ts, AllowAll(), nil)
	for _, extra := range []string{`,"inputResponses":{"user_name":12345}`, `,"inputResponses":null`, `,"inputResponses":[]`, `,"requestState":7`} {
		status, body := s.Handle(context.Background(), Caller{}, modernCall(`{}`, extra, elicitCaps))
		if r := decodeRPC(t, body); r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("%s: want -32602, got %d %s", extra, status, body)
		}
	}
}

// second returns the second of two values.
func second[A, B any](_ A, b B) B { return b }

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp"
)

// The tools of the 2026-07-28 input-required scenarios (SEP-2322): each asks
// the client for input by returning *mcp.InputRequired and finishes when
// the retry carries the responses. The server holds nothing in between;
// state travels sealed in requestState.

func nameSchema(prop string) map[string]any {
	return map[string]any{"type": "object",
		"properties": map[string]any{prop: map[string]any{"type": "string"}},
		"required":   []string{prop}}
}

func userName() mcp.InputRequest {
	return mcp.Elicitation("What is your name?", nameSchema("name"))
}

func capitalQuestion(text string, maxTokens int) mcp.InputRequest {
	return mcp.Sampling(map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	})
}

// elicited decodes an ElicitResult's content.
func elicited(raw json.RawMessage) map[string]any {
	var r struct {
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Content
}

// sampled returns a CreateMessageResult's text.
func sampled(raw json.RawMessage) string {
	var r struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Content.Text
}

// missing returns the keys of want that req has no response for.
func missing(req *mcp.Request, want ...string) bool {
	for _, k := range want {
		if _, ok := req.InputResponse(k); !ok {
			return true
		}
	}
	return false
}

func mrtrTools() []mcp.Tool {
	tool := func(name, desc string, fn func(context.Context, *mcp.Request) (*mcp.Result, error)) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: desc}, fn)
	}
	return []mcp.Tool{
		tool("test_input_required_result_elicitation", "Asks for the user's name (elicitation), then greets them.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				raw, ok := req.InputResponse("user_name")
				if !ok {
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"user_name": userName()}}
				}
				return mcp.TextResult(fmt.Sprintf("Hello, %v!", elicited(raw)["name"])), nil
			}),
		tool("test_input_required_result_sampling", "Asks the client's model a question (sampling), then returns its answer.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				raw, ok := req.InputResponse("capital_question")
				if !ok {
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
						"capital_question": capitalQuestion("What is the capital of France?", 100)}}
				}
				return mcp.TextResult(sampled(raw)), nil
			}),
		tool("test_input_required_result_list_roots", "Asks for the client's roots, then lists them.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				raw, ok := req.InputResponse("client_roots")
				if !ok {
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"client_roots": mcp.ListRoots()}}
				}
				var r struct {
					Roots []struct {
						URI string `json:"uri"`
					} `json:"roots"`
				}
				_ = json.Unmarshal(raw, &r)
				uris := make([]string, len(r.Roots))
				for i, root := range r.Roots {
					uris[i] = root.URI
				}
				return mcp.TextResult("Roots: " + strings.Join(uris, ", ")), nil
			}),
		tool("test_input_required_result_request_state", "Asks for a confirmation with a requestState, then checks the state came back.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				if missing(req, "confirm") || string(req.State()) != "confirm-pending" {
					return nil, &mcp.InputRequired{
						Requests: map[string]mcp.InputRequest{"confirm": mcp.Elicitation("Please confirm",
							map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}})},
						State: []byte("confirm-pending")}
				}
				return mcp.TextResult("state-ok: confirmed"), nil
			}),
		tool("test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots at once.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				if missing(req, "user_name", "greeting", "client_roots") || req.State() == nil {
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
						"user_name":    userName(),
						"greeting":     capitalQuestion("Generate a greeting", 50),
						"client_roots": mcp.ListRoots(),
					}, State: []byte("all-three")}
				}
				raw, _ := req.InputResponse("greeting")
				name, _ := req.InputResponse("user_name")
				return mcp.TextResult(fmt.Sprintf("%s %v", sampled(raw), elicited(name)["name"])), nil
			}),
		tool("test_input_required_result_multi_round", "Asks two questions in two rounds, carrying the first answer in its state.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				state := string(req.State())
				switch {
				case strings.HasPrefix(state, "round-2:") && !missing(req, "step2"):
					raw, _ := req.InputResponse("step2")
					return mcp.TextResult(fmt.Sprintf("%s likes %v", strings.TrimPrefix(state, "round-2:"), elicited(raw)["color"])), nil
				case state == "round-1" && !missing(req, "step1"):
					raw, _ := req.InputResponse("step1")
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
						"step2": mcp.Elicitation("Step 2: What is your favorite color?", nameSchema("color"))},
						State: []byte(fmt.Sprintf("round-2:%v", elicited(raw)["name"]))}
				}
				return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
					"step1": mcp.Elicitation("Step 1: What is your name?", nameSchema("name"))}, State: []byte("round-1")}
			}),
		tool("test_input_required_result_tampered_state", "Asks for a confirmation with a requestState; a tampered state is refused by the server.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				if missing(req, "confirm") || req.State() == nil {
					return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
						"confirm": mcp.Elicitation("Please confirm", nameSchema("ok"))}, State: []byte("sealed")}
				}
				return mcp.TextResult("state verified"), nil
			}),
		tool("test_input_required_result_capabilities", "Asks only for the kinds of input the client declared it supports.",
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				reqs := map[string]mcp.InputRequest{}
				if req.ClientSupports("sampling") {
					reqs["question"] = capitalQuestion("What is the capital of France?", 100)
				}
				if req.ClientSupports("elicitation") {
					reqs["user_name"] = userName()
				}
				if len(reqs) == 0 || !missing(req, keys(reqs)...) {
					return mcp.TextResult("nothing more to ask"), nil
				}
				return nil, &mcp.InputRequired{Requests: reqs}
			}),
	}
}

func keys(m map[string]mcp.InputRequest) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

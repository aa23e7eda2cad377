package servers

import (
	"encoding/json"
	"net/http"
)

// bareRequest is the JSON-RPC request as the bare floor decodes it.
type bareRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments EchoIn `json:"arguments"`
	} `json:"params"`
}

type bareText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type bareCallResult struct {
	Content           []bareText `json:"content"`
	StructuredContent EchoOut    `json:"structuredContent"`
}

type bareTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

type bareListResult struct {
	Tools []bareTool `json:"tools"`
}

type bareResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *bareError      `json:"error,omitempty"`
}

type bareError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// The schemas the bare floor lists, as the MCP libraries infer them.
var (
	bareInputSchema  = json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"the text to echo"}},"additionalProperties":false}`)
	bareOutputSchema = json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"the echoed text"}},"additionalProperties":false}`)
)

// Bare returns the floor: a plain net/http handler that decodes the
// JSON-RPC request into a struct with encoding/json, answers tools/call of
// any tool with the echo result (a JSON text copy in content plus
// structuredContent) and tools/list with the n tools, and encodes the
// response with encoding/json. It does no MCP work at all: no validation,
// no headers checked, no version negotiation.
func Bare(n int) (http.Handler, error) {
	tools := make([]bareTool, max(n, 1))
	for i := range tools {
		tools[i] = bareTool{Name: ToolName(i), Description: toolDescription(i),
			InputSchema: bareInputSchema, OutputSchema: bareOutputSchema}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req bareRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeBare(w, bareResponse{JSONRPC: "2.0", ID: json.RawMessage("null"),
				Error: &bareError{Code: -32700, Message: "Parse error"}})
			return
		}
		resp := bareResponse{JSONRPC: "2.0", ID: req.ID}
		switch req.Method {
		case "tools/call":
			out := EchoOut(req.Params.Arguments)
			text, err := json.Marshal(out)
			if err != nil {
				resp.Error = &bareError{Code: -32603, Message: "Internal error"}
				break
			}
			resp.Result = bareCallResult{Content: []bareText{{Type: "text", Text: string(text)}}, StructuredContent: out}
		case "tools/list":
			resp.Result = bareListResult{Tools: tools}
		default:
			resp.Error = &bareError{Code: -32601, Message: "Method not found"}
		}
		writeBare(w, resp)
	}), nil
}

func writeBare(w http.ResponseWriter, resp bareResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// InputRequest is one request for input a tool needs from the client before
// it can finish (2026-07-28 multi round-trip requests, SEP-2322): an
// elicitation, a sampling request or a roots listing. Build it with
// Elicitation, Sampling or ListRoots.
type InputRequest struct {
	// Method is "elicitation/create", "sampling/createMessage" or
	// "roots/list".
	Method string `json:"method"`
	// Params are the request's params, encoded with encoding/json.
	Params any `json:"params"`
}

// Elicitation asks the user, through the client, for data matching
// requestedSchema (a JSON Schema object of primitive properties).
func Elicitation(message string, requestedSchema any) InputRequest {
	return InputRequest{Method: "elicitation/create", Params: map[string]any{
		"mode": "form", "message": message, "requestedSchema": requestedSchema}}
}

// Sampling asks the client's model for a completion; params is a
// CreateMessageRequest's params (messages, maxTokens, ...).
func Sampling(params any) InputRequest {
	return InputRequest{Method: "sampling/createMessage", Params: params}
}

// ListRoots asks the client for its roots.
func ListRoots() InputRequest {
	return InputRequest{Method: "roots/list", Params: map[string]any{}}
}

// capability names the client capability an input request needs.
func (r InputRequest) capability() string {
	switch r.Method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

// InputRequired is returned (as an error) by a tool that needs input from
// the client before it can finish. Under 2026-07-28 the Server answers with
// an InputRequiredResult carrying Requests and State; the client gathers
// the input and calls the tool again with the responses
// (Request.InputResponse) and the state (Request.State). The server keeps
// nothing in between: State travels sealed (encrypted and authenticated,
// bound to the caller, the tool, its arguments and a deadline) through the
// client. Before 2026-07-28, where no such result exists, the call ends
// with an isError result saying what input was needed.
type InputRequired struct {
	// Requests maps identifiers chosen by the tool to requests. Only
	// requests for capabilities the client declared may be sent (see
	// Request.ClientSupports); others fail the call with -32021.
	Requests map[string]InputRequest
	// State is what the tool wants back on the retry; nil for none. The
	// client cannot read or change it.
	State []byte
}

// Error implements error.
func (e *InputRequired) Error() string {
	keys := make([]string, 0, len(e.Requests))
	for k, r := range e.Requests {
		keys = append(keys, k+" ("+r.Method+")")
	}
	sort.Strings(keys)
	return "mcp: input required from the client: " + strings.Join(keys, ", ")
}

// readRetry reads the inputResponses and requestState of a 2026-07-28
// tools/call retry of req.
func (s *Server) readRetry(req *Request, params map[string]any) (inputs map[string]json.RawMessage, state []byte, err error) {
	if v, has := params["inputResponses"]; has {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, nil, invalidParams("inputResponses must be an object")
		}
		inputs = make(map[string]json.RawMessage, len(obj))
		for k, r := range obj {
			if _, isObj := r.(map[string]any); !isObj {
				// Every input response (ElicitResult, CreateMessageResult,
				// ListRootsResult) is an object.
				return nil, nil, invalidParams("inputResponses[%q] must be an object, got %s", k, jsonTypeName(r))
			}
			enc, err := json.Marshal(r)
			if err != nil {
				return nil, nil, invalidParams("inputResponses[%q]: %v", k, err)
			}
			inputs[k] = enc
		}
	}
	if v, has := params["requestState"]; has {
		token, ok := v.(string)
		if !ok {
			return nil, nil, invalidParams("requestState must be a string")
		}
		if s.sealer == nil {
			return nil, nil, invalidParams("%v: this server cannot open request states", errBadState)
		}
		// The arguments digest needs the generic arguments, set by now.
		if state, err = s.sealer.open(req, token); err != nil {
			return nil, nil, invalidParams("%v", err)
		}
	}
	return inputs, state, nil
}

// inputRequired answers a tool's InputRequired with an InputRequiredResult
// (resultType "input_required"), after checking the client declared every
// capability the requests need.
func (s *Server) inputRequired(req *Request, need *InputRequired, m *message) ([]byte, error) {
	if len(need.Requests) == 0 && need.State == nil {
		return nil, fmt.Errorf("tool %q returned InputRequired with neither requests nor state", req.Name)
	}
	missing := map[string]any{}
	keys := make([]string, 0, len(need.Requests))
	for k, r := range need.Requests {
		c := r.capability()
		if c == "" {
			return nil, fmt.Errorf("tool %q: input request %q has unknown method %q", req.Name, k, r.Method)
		}
		if !req.ClientSupports(c) {
			missing[c] = map[string]any{}
		}
		keys = append(keys, k)
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(missing))
		for c := range missing {
			names = append(names, c)
		}
		sort.Strings(names)
		return nil, &Error{Code: CodeMissingClientCapability,
			Message: "Missing required client capability: " + strings.Join(names, ", "),
			Data:    map[string]any{"requiredCapabilities": missing}}
	}
	sort.Strings(keys)
	r := inputRequiredResult{Requests: make(map[string]json.RawMessage, len(keys)), ServerInfo: s.infoRaw}
	for _, k := range keys {
		enc, err := json.Marshal(need.Requests[k])
		if err != nil {
			return nil, fmt.Errorf("tool %q: input request %q: %w", req.Name, k, err)
		}
		r.Requests[k] = enc
	}
	if need.State != nil {
		if s.sealer == nil {
			return nil, fmt.Errorf("sealing requestState: %w", s.sealerErr)
		}
		token, err := s.sealer.seal(req, need.State)
		if err != nil {
			return nil, fmt.Errorf("sealing requestState: %w", err)
		}
		r.State = token
	}
	return m.respond(appendInputRequiredResult(nil, &r)), nil
}

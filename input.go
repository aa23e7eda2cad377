package mcp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
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

// errBadState is the error for a requestState that fails verification.
var errBadState = errors.New("invalid requestState")

// sealedState is what a requestState carries, sealed.
type sealedState struct {
	Expires   int64  `json:"exp"`
	Principal string `json:"sub"`
	Tool      string `json:"tool"`
	Args      []byte `json:"args"` // sha256 of the canonical arguments
	State     []byte `json:"state"`
}

// stateSealer seals and opens requestState with AES-256-GCM.
type stateSealer struct {
	aead cipher.AEAD
	ttl  time.Duration
}

func newStateSealer(key []byte, ttl time.Duration) (*stateSealer, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	}
	k := sha256.Sum256(key)
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	return &stateSealer{aead: aead, ttl: ttl}, nil
}

// argsDigest digests the arguments in a canonical form, so that a retry
// whose arguments differ only in spacing or member order still matches.
func argsDigest(args any) []byte {
	canon, _ := json.Marshal(args) // maps encode with sorted keys
	d := sha256.Sum256(canon)
	return d[:]
}

func (s *stateSealer) seal(req *Request, state []byte) (string, error) {
	payload, err := json.Marshal(sealedState{
		Expires: time.Now().Add(s.ttl).Unix(), Principal: req.Caller.Principal,
		Tool: req.Name, Args: argsDigest(req.args), State: state,
	})
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(payload)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, payload, nil)), nil
}

// open verifies a requestState for req and returns the tool's state.
func (s *stateSealer) open(req *Request, token string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, fmt.Errorf("%w: not a state this server issued", errBadState)
	}
	n := s.aead.NonceSize()
	payload, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, fmt.Errorf("%w: integrity check failed", errBadState)
	}
	var st sealedState
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("%w: integrity check failed", errBadState)
	}
	switch {
	case time.Now().Unix() > st.Expires:
		return nil, fmt.Errorf("%w: expired; call the tool again without it", errBadState)
	case st.Principal != req.Caller.Principal:
		return nil, fmt.Errorf("%w: issued to another caller", errBadState)
	case st.Tool != req.Name:
		return nil, fmt.Errorf("%w: issued for another tool", errBadState)
	case string(st.Args) != string(argsDigest(req.args)):
		return nil, fmt.Errorf("%w: issued for other arguments", errBadState)
	}
	if st.State == nil {
		st.State = []byte{}
	}
	return st.State, nil
}

// readRetry reads the inputResponses and requestState of a modern
// tools/call retry into req.
func (s *Server) readRetry(req *Request, params map[string]any) error {
	if v, has := params["inputResponses"]; has {
		obj, ok := v.(map[string]any)
		if !ok {
			return invalidParams("inputResponses must be an object")
		}
		req.inputs = make(map[string]json.RawMessage, len(obj))
		for k, r := range obj {
			if _, isObj := r.(map[string]any); !isObj {
				// Every input response (ElicitResult, CreateMessageResult,
				// ListRootsResult) is an object.
				return invalidParams("inputResponses[%q] must be an object, got %s", k, jsonTypeName(r))
			}
			enc, err := json.Marshal(r)
			if err != nil {
				return invalidParams("inputResponses[%q]: %v", k, err)
			}
			req.inputs[k] = enc
		}
	}
	if v, has := params["requestState"]; has {
		token, ok := v.(string)
		if !ok {
			return invalidParams("requestState must be a string")
		}
		if s.sealer == nil {
			return invalidParams("%v: this server cannot open request states", errBadState)
		}
		// The arguments digest needs the generic arguments, set by now.
		st, err := s.sealer.open(req, token)
		if err != nil {
			return invalidParams("%v", err)
		}
		req.state = st
	}
	return nil
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
	b := []byte(`{"resultType":"input_required"`)
	if len(keys) > 0 {
		b = append(b, `,"inputRequests":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			enc, err := json.Marshal(need.Requests[k])
			if err != nil {
				return nil, fmt.Errorf("tool %q: input request %q: %w", req.Name, k, err)
			}
			b = append(b, enc...)
		}
		b = append(b, '}')
	}
	if need.State != nil {
		if s.sealer == nil {
			return nil, fmt.Errorf("sealing requestState: %w", s.sealerErr)
		}
		token, err := s.sealer.seal(req, need.State)
		if err != nil {
			return nil, fmt.Errorf("sealing requestState: %w", err)
		}
		b = append(b, `,"requestState":`...)
		b = appendString(b, token)
	}
	b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
	b = append(b, s.infoRaw...)
	b = append(b, '}')
	return m.respond(b), nil
}

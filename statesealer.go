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
	"time"
)

// errBadState is the error for a requestState that fails verification.
var errBadState = errors.New("mcp: invalid requestState")

// sealedState is what a requestState carries, sealed.
type sealedState struct {
	Expires   int64  `json:"exp"`
	Principal string `json:"sub"`
	Tool      string `json:"tool"`
	Args      []byte `json:"args"` // sha256 of the canonical arguments
	State     []byte `json:"state"`
}

// stateSealer seals and opens requestState with AES-256-GCM. Its clock
// decides expiry.
type stateSealer struct {
	aead cipher.AEAD
	ttl  time.Duration
	now  func() time.Time
}

func newStateSealer(key []byte, ttl time.Duration, now func() time.Time) (*stateSealer, error) {
	if now == nil {
		now = time.Now
	}
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
	return &stateSealer{aead: aead, ttl: ttl, now: now}, nil
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
		Expires: s.now().Add(s.ttl).Unix(), Principal: req.Caller.Principal,
		Tool: req.Name, Args: argsDigest(req.c.args), State: state,
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
	case s.now().Unix() > st.Expires:
		return nil, fmt.Errorf("%w: expired; call the tool again without it", errBadState)
	case st.Principal != req.Caller.Principal:
		return nil, fmt.Errorf("%w: issued to another caller", errBadState)
	case st.Tool != req.Name:
		return nil, fmt.Errorf("%w: issued for another tool", errBadState)
	case string(st.Args) != string(argsDigest(req.c.args)):
		return nil, fmt.Errorf("%w: issued for other arguments", errBadState)
	}
	if st.State == nil {
		st.State = []byte{}
	}
	return st.State, nil
}

package mcp

import (
	"context"
	"errors"
	"time"
)

// ErrTaskStoreUnavailable: the task store cannot serve the request for now
// (it cannot be reached, or is failing over: a replica promoted, a cluster
// slot without a primary), though it may a moment later. Stores wrap it
// (fmt.Errorf("...: %w", mcp.ErrTaskStoreUnavailable)); the Server answers
// it, on task creation and on every tasks/* method, with -32001
// (CodeLimitExceeded) and Retry-After, as it answers ErrTaskStoreFull,
// so that clients retry instead of taking the task as failed or unknown.
var ErrTaskStoreUnavailable = errors.New("mcp: task store unavailable")

// storeUnavailableRetry is the Retry-After of a request refused because
// the task store is unavailable: about the time a failover takes.
const storeUnavailableRetry = 2 * time.Second

// storeUnavailable is the answer to a request the task store cannot serve
// for now (ErrTaskStoreUnavailable).
func storeUnavailable(ctx context.Context, what string) *Error {
	if ex := ExchangeFromContext(ctx); ex != nil {
		ex.retryAfter = storeUnavailableRetry
	}
	return &Error{Code: CodeLimitExceeded, Message: "Task store unavailable: " + what + "; retry in " +
		storeUnavailableRetry.String(), Data: map[string]any{"retryAfterMs": storeUnavailableRetry.Milliseconds()}}
}

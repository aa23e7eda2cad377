package mcp

import (
	"context"
	"time"
)

// storeUnavailableRetry is the Retry-After of a request refused because
// the task store is unavailable: about the time a failover takes.
const storeUnavailableRetry = 2 * time.Second

// storeUnavailable is the answer to a request the task store cannot serve
// for now (tasks.ErrUnavailable).
func storeUnavailable(ctx context.Context, what string) *Error {
	if ex := ExchangeFromContext(ctx); ex != nil {
		ex.retryAfter = storeUnavailableRetry
	}
	return &Error{Code: CodeLimitExceeded, Message: "Task store unavailable: " + what + "; retry in " +
		storeUnavailableRetry.String(), Data: map[string]any{"retryAfterMs": storeUnavailableRetry.Milliseconds()}}
}

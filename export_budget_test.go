package mcp

// PendingBytes is what h's budget of answer bytes counts now
// (HandlerOptions.MaxPendingBytes), for the tests of batch_budget_test.go.
func PendingBytes(h *Handler) int64 { return h.budget.used.Load() }

// BatchesBuilding is how many of s's BatchLimits.MaxConcurrentBatches
// slots are taken.
func BatchesBuilding(s *Server) int { return len(s.batches) }

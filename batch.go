package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Defaults of BatchLimits.
const (
	DefaultMaxBatchBytes        = 4 << 20
	DefaultBatchConcurrency     = 4
	DefaultMaxConcurrentBatches = 8
)

// BatchLimits bound a JSON-RPC batch (2025-03-26 rules; later revisions
// have none), so that one request costs no more than its parts would alone.
// The parser already bounds a batch to 256 elements (Limits).
type BatchLimits struct {
	// MaxResponseBytes caps the whole batch response. Requests are answered
	// in order while their responses fit; the first that does not, and
	// every later one, is answered with a -32001 error saying so (and is
	// not run at all once the cap has been reached). Zero means
	// DefaultMaxBatchBytes (4 MiB), or Options.MaxResultBytes when that is
	// larger; negative means no cap.
	MaxResponseBytes int
	// Timeout is one deadline for the whole batch: the context of every
	// request in it ends then, and a request not started by then is
	// answered with a -32001 error instead of being run. Zero means
	// Options.CallTimeout (no deadline when that is zero too); negative
	// means none. Options.CallTimeout still bounds each call.
	Timeout time.Duration
	// Concurrency is how many requests of one batch run at once. Zero means
	// DefaultBatchConcurrency (4); 1 or negative runs them one after the
	// other.
	Concurrency int
	// MaxConcurrentBatches is how many batches a Server builds at once,
	// whatever their clients: a batch beyond it waits for its turn, up to
	// 5 seconds while its client waits, and is then refused (503 over
	// HTTP, Retry-After, a -32001 error naming this option), so that many
	// clients sending batches at once share the CPU instead of each
	// holding a partly built answer. Zero means
	// DefaultMaxConcurrentBatches (8); negative means no bound. (Batch
	// answers, while they are built, also count in
	// HandlerOptions.MaxPendingBytes.)
	MaxConcurrentBatches int
}

// batchWait is how long a batch waits for one of the
// BatchLimits.MaxConcurrentBatches slots before it is refused.
const batchWait = 5 * time.Second

// newBatchSlots returns the slots of BatchLimits.MaxConcurrentBatches n;
// nil for no bound.
func newBatchSlots(n int) chan struct{} {
	switch {
	case n < 0:
		return nil
	case n == 0:
		n = DefaultMaxConcurrentBatches
	}
	return make(chan struct{}, n)
}

// batchSlot waits for a slot to build a batch in, and returns the function
// that gives it back; false when none came free within batchWait or the
// client left.
func (s *Server) batchSlot(ctx context.Context) (release func(), ok bool) {
	if s.batches == nil {
		return func() {}, true
	}
	release = func() { <-s.batches }
	select {
	case s.batches <- struct{}{}:
		return release, true
	default:
	}
	t := time.NewTimer(batchWait)
	defer t.Stop()
	select {
	case s.batches <- struct{}{}:
		return release, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// batchesBusy answers a batch that found no slot to be built in.
func (s *Server) batchesBusy(ex *Exchange) (int, []byte) {
	if ex != nil {
		ex.retryAfter = pendingRetryAfter * time.Second
	}
	return http.StatusServiceUnavailable, appendError(nil, nil, CodeLimitExceeded, "Server busy: "+strconv.Itoa(cap(s.batches))+
		" batches are being built, the most this server builds at once (BatchLimits.MaxConcurrentBatches); "+
		"retry later, or send the requests one at a time", nil)
}

// batchLimits resolves the defaults of s's BatchLimits.
func (s *Server) batchLimits() (maxBytes int, timeout time.Duration, workers int) {
	b := s.opts.Batch
	maxBytes, timeout, workers = b.MaxResponseBytes, b.Timeout, b.Concurrency
	if maxBytes == 0 {
		maxBytes = max(DefaultMaxBatchBytes, s.opts.MaxResultBytes)
	}
	if timeout == 0 {
		timeout = s.opts.CallTimeout
	}
	if workers == 0 {
		workers = DefaultBatchConcurrency
	}
	return maxBytes, timeout, max(workers, 1)
}

// batchElem is the outcome of one element of a batch.
type batchElem struct {
	resp   []byte
	note   bool // no response (a notification, a client's response)
	notRun int  // why it was not run: 0 (it ran), skipDeadline, skipCap
}

const (
	skipDeadline = 1 + iota
	skipCap
)

// handleBatch answers a 2025-03-26 batch: one response per request, in
// order, none for notifications, 202 when there are only notifications;
// under the BatchLimits. ex is the request's Exchange, or nil.
func (s *Server) handleBatch(ctx context.Context, caller Caller, body []byte, tr *transport, ex *Exchange) (int, []byte) {
	if tr.version != "" && !s.serves(tr.version) {
		return http.StatusBadRequest, appendErr(nil, nil, s.unsupported(tr.version))
	}
	if tr.version != "" && tr.version != Version20250326 {
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil)
	}
	p := boundedjson.Parser{Limits: boundedjson.Limits(s.limits), Elements: true}
	v, err := p.Parse(body)
	if err != nil {
		return parseFailure(err)
	}
	if len(v.([]any)) == 0 {
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil)
	}
	release, ok := s.batchSlot(ctx)
	if !ok {
		return s.batchesBusy(ex)
	}
	defer release()
	maxBytes, timeout, workers := s.batchLimits()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	// The answer is counted in the Handler's budget of answer bytes while
	// it is built, so that many batches built at once hold no more than
	// the answers waiting to be written may.
	var budget *writeBudget
	if ex != nil && ex.budget != nil && ex.budget.max >= 0 {
		budget = ex.budget
		if budget.full() {
			return budgetRefusal(ex)
		}
	}
	a := &batchAnswer{elems: p.Elems, out: make([]batchElem, len(p.Elems)), finished: make([]bool, len(p.Elems)),
		maxBytes: maxBytes, timeout: timeout, b: []byte{'['}, budget: budget}
	runOne := func(i int) {
		var e batchElem
		switch {
		case ctx.Err() != nil:
			e.notRun = skipDeadline
		case a.full():
			e.notRun = skipCap
		default:
			e = s.batchElement(ctx, caller, a.elems[i], tr)
		}
		a.finish(i, e)
	}
	if workers == 1 || len(a.elems) == 1 {
		for i := range a.elems {
			runOne(i)
		}
	} else {
		// Workers take the elements in order, so the cap is reached on a
		// prefix of the batch, whatever the timing.
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(workers, len(a.elems)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(a.elems); i = int(next.Add(1) - 1) {
					runOne(i)
				}
			}()
		}
		wg.Wait()
	}
	// What the answer holds is counted again, as a whole, when it is
	// written.
	if refused := a.uncharge(); refused {
		return budgetRefusal(ex)
	}
	if a.n == 0 {
		return http.StatusAccepted, nil
	}
	return http.StatusOK, append(a.b, ']')
}

// batchAnswer assembles a batch's response in request order as its
// elements finish, so that a response is held once: in the answer, or,
// while an earlier element still runs, on its own.
type batchAnswer struct {
	elems    [][]byte
	maxBytes int
	timeout  time.Duration

	used atomic.Int64 // bytes of the responses finished so far

	mu       sync.Mutex
	out      []batchElem
	finished []bool
	next     int    // the first element not yet in b
	b        []byte // the response so far
	n        int    // responses in b
	total    int    // bytes of the elements' own responses in b
	over     bool   // an element's response did not fit

	budget  *writeBudget // the Handler's budget of answer bytes; nil: none
	waiting int          // bytes of the responses finished but not yet in b
	charged int          // bytes counted in budget: cap(b) + waiting
	refused bool         // budget refused them: the batch is answered 503
}

// full reports whether the cap has been reached: elements picked now are
// not run.
func (a *batchAnswer) full() bool {
	if a.maxBytes < 0 && a.budget == nil {
		return false
	}
	a.mu.Lock()
	over, refused := a.over, a.refused
	a.mu.Unlock()
	return refused || (a.maxBytes >= 0 && (over || a.used.Load() > int64(a.maxBytes)))
}

// finish records element i and appends every finished element that is
// next in order.
func (a *batchAnswer) finish(i int, e batchElem) {
	a.used.Add(int64(len(e.resp)))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refused {
		return
	}
	a.out[i], a.finished[i] = e, true
	a.waiting += len(e.resp)
	for ; a.next < len(a.out) && a.finished[a.next]; a.next++ {
		a.emit(a.next)
	}
	a.charge()
}

// charge counts what the answer holds now in the budget. Beyond it, the
// answer is dropped, the elements not yet run are not run, and the batch
// is refused. Called with mu held.
func (a *batchAnswer) charge() {
	if a.budget == nil {
		return
	}
	want := cap(a.b) + a.waiting
	switch {
	case want < a.charged:
		a.budget.give(a.charged - want)
	case want > a.charged && !a.budget.grow(a.charged, want-a.charged):
		a.refused = true
		a.b, a.out, a.waiting = nil, nil, 0
		a.budget.give(a.charged)
		a.charged = 0
		return
	}
	a.charged = want
}

// uncharge gives back what the budget counts of the answer, once every
// element has finished, and reports whether the budget refused it.
func (a *batchAnswer) uncharge() (refused bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.budget != nil {
		a.budget.give(a.charged)
		a.charged = 0
	}
	return a.refused
}

// emit appends element i's response, or the error that replaces it.
// Called with mu held, in request order.
func (a *batchAnswer) emit(i int) {
	el := a.out[i]
	a.out[i] = batchElem{}
	resp := el.resp
	a.waiting -= len(resp)
	switch {
	case el.notRun == 0 && el.note:
		return
	case el.notRun != 0 || a.over || (a.maxBytes >= 0 && a.total+len(resp) > a.maxBytes):
		id, isNote := peekID(a.elems[i])
		if isNote {
			return
		}
		a.over = a.over || el.notRun != skipDeadline
		resp = appendError(nil, id, CodeLimitExceeded, batchRefusal(el.notRun, a.maxBytes, a.timeout), nil)
	default:
		a.total += len(resp)
	}
	if a.n > 0 {
		a.b = append(a.b, ',')
	}
	a.b = append(a.b, resp...)
	a.n++
}

// budgetRefusal answers a batch refused for the Handler's budget of answer
// bytes: 503, Retry-After and a -32001 error naming the option.
func budgetRefusal(ex *Exchange) (int, []byte) {
	ex.retryAfter = pendingRetryAfter * time.Second
	return http.StatusServiceUnavailable, appendError(nil, nil, CodeLimitExceeded, ex.budget.message(), nil)
}

// batchElement answers one element, recovering a panic as Handle does, since
// it may run on a goroutine of its own.
func (s *Server) batchElement(ctx context.Context, caller Caller, el []byte, tr *transport) (e batchElem) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: panic while handling a request",
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			id, _ := peekID(el)
			e = batchElem{resp: appendError(nil, id, CodeInternalError, "Internal error", nil)}
		}
	}()
	_, e.resp, e.note = s.handleOne(ctx, caller, el, tr)
	return e
}

// batchRefusal is the message for an element not answered by its own
// response.
func batchRefusal(notRun, maxBytes int, timeout time.Duration) string {
	switch notRun {
	case skipDeadline:
		return "Batch deadline of " + timeout.String() + " (BatchLimits.Timeout) passed before this request ran; send it again, alone or in a smaller batch"
	case skipCap:
		return "Batch response size cap of " + strconv.Itoa(maxBytes) + " bytes (BatchLimits.MaxResponseBytes) reached before this request ran; it was not run: send it again, alone or in a smaller batch"
	}
	return "Batch response size cap of " + strconv.Itoa(maxBytes) + " bytes (BatchLimits.MaxResponseBytes) reached: this request ran, but its response does not fit and was dropped; ask for less or send it alone"
}

// peekID reads the id of a batch element that gets no response of its own,
// and whether it is a notification or a client's response (which get none
// at all). Off the fast path.
func peekID(el []byte) (id []byte, isNote bool) {
	var env struct {
		ID     *json.RawMessage `json:"id"`
		Method *string          `json:"method"`
		Result *json.RawMessage `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(el, &env) != nil {
		return nil, false
	}
	if env.Method == nil && env.ID != nil && (env.Result != nil || env.Error != nil) {
		return nil, true // a client's response: acknowledged, never answered
	}
	if env.ID == nil {
		return nil, env.Method != nil
	}
	return validID(*env.ID), false
}

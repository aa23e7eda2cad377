package runtimetools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
)

// DefaultCheckTimeout is the default of HealthOptions.Timeout.
const DefaultCheckTimeout = 5 * time.Second

// Check states in a HealthReport.
const (
	CheckOK      = "ok"
	CheckFailed  = "failed"
	CheckTimeout = "timeout"
)

// CheckFunc checks one dependency or part of the service; it returns nil
// when healthy. It should return when ctx is done.
type CheckFunc func(ctx context.Context) error

// HealthOptions configure a Health. The zero value is usable.
type HealthOptions struct {
	// Timeout bounds each check. Zero means DefaultCheckTimeout; negative
	// is an error.
	Timeout time.Duration
	// Logger receives the stack of a panicking check. Default: discard.
	Logger *slog.Logger
}

// Health holds named health checks and runs them. It is safe for
// concurrent use; checks may be added and removed at any time.
type Health struct {
	timeout time.Duration
	logger  *slog.Logger

	mu     sync.Mutex
	checks map[string]*check
}

type check struct {
	fn CheckFunc
	// runningSince is when a run that has not returned yet started: a
	// check that overran its timeout is not started again until it
	// returns.
	runningSince time.Time
}

// NewHealth returns an empty Health. opts may be nil. It fails for a
// negative timeout.
func NewHealth(opts *HealthOptions) (*Health, error) {
	h := &Health{timeout: DefaultCheckTimeout, logger: slog.New(slog.DiscardHandler), checks: map[string]*check{}}
	if opts != nil {
		switch {
		case opts.Timeout < 0:
			return nil, fmt.Errorf("runtimetools: HealthOptions.Timeout is %v; want 0 (the default) or more", opts.Timeout)
		case opts.Timeout > 0:
			h.timeout = opts.Timeout
		}
		if opts.Logger != nil {
			h.logger = opts.Logger
		}
	}
	return h, nil
}

// ErrUnknownCheck is returned by Health.Run for a name that is not
// registered.
var ErrUnknownCheck = errors.New("runtimetools: unknown health check")

// Add registers fn under name (1 to 64 letters, digits, '_', '-', '.',
// '/' or ':'). It fails for an invalid name, a name already registered or
// a nil fn.
func (h *Health) Add(name string, fn CheckFunc) error {
	if !validCheckName(name) {
		return fmt.Errorf("runtimetools: invalid health check name %s: want 1 to 64 letters, digits, _, -, ., / or colons", echo(name))
	}
	if fn == nil {
		return fmt.Errorf("runtimetools: health check %q: nil function", name)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.checks[name]; dup {
		return fmt.Errorf("runtimetools: health check %q is already registered", name)
	}
	h.checks[name] = &check{fn: fn}
	return nil
}

// Remove unregisters the check name and reports whether it was there.
func (h *Health) Remove(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.checks[name]
	delete(h.checks, name)
	return ok
}

// Names returns the registered check names, sorted.
func (h *Health) Names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sortedKeys(h.checks)
}

func validCheckName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("_-./:", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// HealthReport is the outcome of Health.Run.
type HealthReport struct {
	// Status is "ok" when every check passed, "failing" otherwise.
	Status string        `json:"status" jsonschema:"ok when every check passed, failing otherwise"`
	Checks []CheckResult `json:"checks" jsonschema:"by name"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	// Name is the check's name, as given to Health.Add.
	Name string `json:"name"`
	// Status is CheckOK, CheckFailed (an error or a panic) or
	// CheckTimeout (it did not return within the timeout, or an earlier
	// run has still not returned).
	Status     string  `json:"status" jsonschema:"ok, failed (an error or a panic) or timeout"`
	DurationMs float64 `json:"durationMs" jsonschema:"how long it ran, in milliseconds"`
	// Error is the check's error, a panic's value or the timeout, cut to
	// 512 bytes, with credentials redacted ("password=x", the passwords
	// of URLs, tokens: see the package documentation).
	Error string `json:"error,omitempty"`
}

// Run runs the named checks, or all when names is empty, concurrently,
// each under the timeout, and reports each one's status and duration. A
// panicking check is a failed check: the panic does not escape and its
// stack goes to the Logger. Run returns within the timeout (or when ctx is
// done); a check that ignores its context keeps running in the background
// and is reported as timed out, not started again, until it returns.
func (h *Health) Run(ctx context.Context, names ...string) (*HealthReport, error) {
	h.mu.Lock()
	if len(names) == 0 {
		names = sortedKeys(h.checks)
	}
	checks := make([]*check, len(names))
	for i, n := range names {
		c := h.checks[n]
		if c == nil {
			h.mu.Unlock()
			return nil, fmt.Errorf("%w %s; registered: %s", ErrUnknownCheck, echo(n), strings.Join(sortedKeys(h.checks), ", "))
		}
		checks[i] = c
	}
	h.mu.Unlock()
	rep := &HealthReport{Status: CheckOK, Checks: make([]CheckResult, len(names))}
	var wg sync.WaitGroup
	for i := range checks {
		wg.Go(func() { rep.Checks[i] = h.runOne(ctx, names[i], checks[i]) })
	}
	wg.Wait()
	slices.SortFunc(rep.Checks, func(a, b CheckResult) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range rep.Checks {
		if c.Status != CheckOK {
			rep.Status = "failing"
		}
	}
	return rep, nil
}

// runOne runs one check under the timeout.
func (h *Health) runOne(ctx context.Context, name string, c *check) CheckResult {
	start := time.Now()
	res := CheckResult{Name: name}
	h.mu.Lock()
	if since := c.runningSince; !since.IsZero() {
		h.mu.Unlock()
		res.Status = CheckTimeout
		res.Error = fmt.Sprintf("an earlier run, started %s ago, has not returned; not started again", time.Since(since).Round(time.Millisecond))
		return res
	}
	c.runningSince = start
	h.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			h.mu.Lock()
			c.runningSince = time.Time{}
			h.mu.Unlock()
		}()
		defer func() {
			if r := recover(); r != nil {
				h.logger.Error("runtimetools: health check panicked", "check", name, "panic", panicText(r), "stack", string(debug.Stack()))
				done <- fmt.Errorf("panic: %s", panicText(r))
			}
		}()
		done <- c.fn(cctx)
	}()
	select {
	case err := <-done:
		res.DurationMs = millis(time.Since(start))
		if err != nil {
			res.Status, res.Error = CheckFailed, errorText(err)
		} else {
			res.Status = CheckOK
		}
	case <-cctx.Done():
		res.DurationMs = millis(time.Since(start))
		res.Status = CheckTimeout
		if ctx.Err() != nil {
			res.Error = "the request ended before the check returned"
		} else {
			res.Error = fmt.Sprintf("did not return within %v", h.timeout)
		}
	}
	return res
}

// panicText formats a panic value, with credentials redacted; a value
// whose formatting panics too is named by its type.
func panicText(r any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%T", r)
		}
	}()
	return clip(defaultSecrets.redactText(fmt.Sprint(r)), 200)
}

// errorText formats a check's error, bounded and with credentials
// redacted (redactText: "password=x", URL passwords, tokens).
func errorText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%T (its Error method panicked)", err)
		}
	}()
	return clip(defaultSecrets.redactText(err.Error()), 512)
}

func millis(d time.Duration) float64 {
	return math.Round(float64(d)/1e4) / 100
}

const healthDescription = "Run the health checks this service registered (its database, caches, downstream services, " +
	"queues...) concurrently, each under a timeout, and answer each one's status (ok, failed, timeout), duration and " +
	"error. status is ok only when every check passed."

const healthSchema = `{"type":"object","properties":{` +
	`"names":{"type":"array","items":{"type":"string"},"description":"Checks to run; default all. An unknown name is an error that lists the registered ones."}},` +
	`"additionalProperties":false}`

type healthArgs struct {
	Names []string `json:"names,omitempty"`
}

func (s *state) healthTool() (mcp.Tool, error) {
	h := s.opts.Health
	return newTool(healthSchema, mcp.ToolInfo{
		Name:         HealthToolName,
		Title:        "Health checks of this service",
		Description:  healthDescription,
		Permission:   PermissionRead,
		Annotations:  readOnly(),
		AdminSummary: "Lets an agent run the service's registered health checks; each check runs the host's code once per call.",
		AdminExample: `{}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Check whether the service's dependencies (database, cache, downstream APIs) are reachable and healthy right now.",
			WhenNotToUse: []string{
				"Why the process itself is slow or big - use runtime_metrics, runtime_goroutines or runtime_profile.",
			},
			Details: "Checks run concurrently; one that overruns its timeout is reported as timeout and, until it returns, is not started again. A panicking check is a failed check.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{}`), Outcome: "status and every check's status, durationMs and error."},
			},
		},
	}, func(ctx context.Context, req *mcp.Request, in healthArgs) (HealthReport, error) {
		if len(in.Names) > 64 {
			return HealthReport{}, argError(req, "/names", "at most 64 names, got %d", len(in.Names))
		}
		for i, n := range in.Names {
			if !validCheckName(n) {
				return HealthReport{}, argError(req, fmt.Sprintf("/names/%d", i), "no health check %s; registered: %s", echo(n), strings.Join(h.Names(), ", "))
			}
		}
		rep, err := h.Run(ctx, in.Names...)
		if err != nil {
			if errors.Is(err, ErrUnknownCheck) {
				return HealthReport{}, argError(req, "/names", "%v", err)
			}
			return HealthReport{}, err
		}
		return *rep, nil
	})
}

package runtimetools

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHealthChecks(t *testing.T) {
	var logged bytes.Buffer
	h := newHealth(t, &HealthOptions{Timeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	var dbCalls atomic.Int32
	must(t, h.Add("db", func(ctx context.Context) error { dbCalls.Add(1); return nil }))
	must(t, h.Add("cache", func(ctx context.Context) error {
		return errors.New("dial redis://app:hunter2@cache:6379: connection refused")
	}))
	must(t, h.Add("payments", func(ctx context.Context) error { panic("nil map in payments client") }))
	must(t, h.Add("slow", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}))
	c := newTestClient(t, &Options{Health: h})
	start := time.Now()
	rep := call[HealthReport](t, c, HealthToolName, map[string]any{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("checks ran one after another? %v", d)
	}
	if rep.Status != "failing" || len(rep.Checks) != 4 {
		t.Fatalf("report = %+v", rep)
	}
	byName := map[string]CheckResult{}
	for _, r := range rep.Checks {
		byName[r.Name] = r
	}
	if r := byName["db"]; r.Status != CheckOK || r.Error != "" || dbCalls.Load() != 1 {
		t.Errorf("db = %+v", r)
	}
	if r := byName["cache"]; r.Status != CheckFailed || !strings.Contains(r.Error, "connection refused") || strings.Contains(r.Error, "hunter2") {
		t.Errorf("cache = %+v", r)
	}
	if r := byName["payments"]; r.Status != CheckFailed || r.Error != "panic: nil map in payments client" {
		t.Errorf("payments = %+v", r)
	}
	if !strings.Contains(logged.String(), "health check panicked") || !strings.Contains(logged.String(), "health_test.go") {
		t.Errorf("the panic's stack was not logged: %s", logged.String())
	}
	if r := byName["slow"]; r.Status != CheckTimeout || r.DurationMs < 150 {
		t.Errorf("slow = %+v", r)
	}
	// The server is unharmed: it answers the next call, and a subset.
	rep = call[HealthReport](t, c, HealthToolName, map[string]any{"names": []string{"db"}})
	if rep.Status != CheckOK || len(rep.Checks) != 1 {
		t.Errorf("db alone: %+v", rep)
	}
	text := callError(t, c, HealthToolName, map[string]any{"names": []string{"nosuch"}})
	if !strings.Contains(text, "registered: cache, db, payments, slow") {
		t.Errorf("unknown check: %s", text)
	}
}

func TestHealthHungCheckNotPiledUp(t *testing.T) {
	h := newHealth(t, &HealthOptions{Timeout: 50 * time.Millisecond})
	release := make(chan struct{})
	var runs atomic.Int32
	must(t, h.Add("stuck", func(context.Context) error {
		runs.Add(1)
		<-release // ignores its context
		return nil
	}))
	rep, err := h.Run(t.Context())
	if err != nil || rep.Checks[0].Status != CheckTimeout {
		t.Fatalf("first run: %+v %v", rep, err)
	}
	rep, _ = h.Run(t.Context())
	if rep.Checks[0].Status != CheckTimeout || !strings.Contains(rep.Checks[0].Error, "not started again") || runs.Load() != 1 {
		t.Errorf("second run while the first hangs: %+v (runs %d)", rep.Checks[0], runs.Load())
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		rep, _ = h.Run(t.Context())
		if rep.Checks[0].Status == CheckOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rep.Checks[0].Status != CheckOK {
		t.Errorf("after the hung run returned: %+v", rep.Checks[0])
	}
}

func TestHealthAddRemove(t *testing.T) {
	h := newHealth(t, nil)
	ok := func(context.Context) error { return nil }
	for _, bad := range []string{"", "has space", strings.Repeat("x", 65), "é"} {
		if err := h.Add(bad, ok); err == nil {
			t.Errorf("Add(%q) succeeded", bad)
		}
	}
	must(t, h.Add("a", ok))
	if err := h.Add("a", ok); err == nil {
		t.Error("a duplicate was added")
	}
	if err := h.Add("b", nil); err == nil {
		t.Error("a nil check was added")
	}
	if !h.Remove("a") || h.Remove("a") {
		t.Error("Remove")
	}
	rep, err := h.Run(context.Background())
	if err != nil || rep.Status != CheckOK || len(rep.Checks) != 0 {
		t.Errorf("no checks: %+v %v", rep, err)
	}
	if _, err := h.Run(context.Background(), "a"); !errors.Is(err, ErrUnknownCheck) {
		t.Errorf("unknown name: %v", err)
	}
}

func TestRedactURLPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"dial postgres://app:hunter2@db:5432/x failed": "dial postgres://app:[REDACTED]@db:5432/x failed",
		"a http://host/path b":                         "a http://host/path b",
		"u://user@host and v://x:y@z":                  "u://user@host and v://x:[REDACTED]@z",
		"redis://:pw@cache:6379, amqp://a:b@mq/v":      "redis://:[REDACTED]@cache:6379, amqp://a:[REDACTED]@mq/v",
		"mail bob@example.com at http://h/x?u=a:b@c":   "mail bob@example.com at http://h/x?u=a:b@c",
		"no url": "no url",
	} {
		if got := redactURLPasswords(in); got != want {
			t.Errorf("redactURLPasswords(%q) = %q, want %q", in, got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

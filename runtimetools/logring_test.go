package runtimetools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/slogtest"
	"time"
)

// records returns what h keeps, oldest first, as slogtest reads a
// handler's output.
func records(h *LogRing) []map[string]any {
	recs, _ := h.snapshot()
	out := make([]map[string]any, 0, len(recs))
	for i := len(recs) - 1; i >= 0; i-- {
		r, ok := decodeRecord(recs[i])
		if !ok {
			continue
		}
		m := map[string]any{}
		for k, v := range r.attrs {
			m[k] = v
		}
		if !r.time.IsZero() {
			m[slog.TimeKey] = r.time
		}
		m[slog.LevelKey] = r.level
		m[slog.MessageKey] = r.msg
		if r.pc != 0 {
			f, _ := runtime.CallersFrames([]uintptr{r.pc}).Next()
			m[slog.SourceKey] = &slog.Source{Function: f.Function, File: f.File, Line: f.Line}
		}
		out = append(out, m)
	}
	return out
}

func TestLogRingSlogtest(t *testing.T) {
	var h *LogRing
	slogtest.Run(t, func(*testing.T) slog.Handler {
		h = newLogs(t, nil, nil)
		return h
	}, func(t *testing.T) map[string]any {
		recs := records(h)
		if len(recs) != 1 {
			t.Fatalf("%d records kept, want 1", len(recs))
		}
		return recs[0]
	})
}

func TestLogRingWrapsSlogtest(t *testing.T) {
	// The wrapped handler still behaves as a handler.
	var buf bytes.Buffer
	h := newLogs(t, slog.NewJSONHandler(&buf, nil), nil)
	err := slogtest.TestHandler(h, func() []map[string]any {
		var out []map[string]any
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	})
	if err != nil {
		t.Error(err)
	}
}

// secretValues are logged under secret keys and must never be answered.
var secretValues = []string{"hunter2", "tok-123456", "sess-abcdef", "Bearer xyz789", "pk_live_42", "s3cr3t-group", "viaLogValuer-777",
	"dsn-pass-42", "err-pass-7", "msg-pass-3"}

// loginEvent logs its password through a LogValuer.
type loginEvent struct{ user, password string }

func (e loginEvent) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user", e.user), slog.String("password", e.password))
}

func logSecrets(logger *slog.Logger) {
	logger.Info("login", "user", "alice", "password", "hunter2", "dsn", "postgres://app:dsn-pass-42@db/x")
	logger.Warn("refresh", slog.Group("auth", slog.String("access_token", "tok-123456"), slog.Int("ttl", 60)))
	logger.With("Cookie", "sess-abcdef").Error("request failed", "status", 500, "Authorization", "Bearer xyz789",
		"err", errors.New("dial redis://:err-pass-7@cache:6379: connection refused"))
	logger.WithGroup("stripe").Info("charge", "apiKey", "pk_live_42", "amount", 12.5)
	logger.Info("nested, from amqp://app:msg-pass-3@mq/v", slog.Group("secret", slog.String("inner", "s3cr3t-group")))
	logger.Info("valuer", "event", loginEvent{user: "bob", password: "viaLogValuer-777"})
}

func TestLogSecretsRedactedInEveryAnswer(t *testing.T) {
	var host bytes.Buffer
	logs := newLogs(t, slog.NewTextHandler(&host, &slog.HandlerOptions{Level: slog.LevelDebug}), nil)
	logSecrets(slog.New(logs))
	// The host's own output is untouched.
	if !strings.Contains(host.String(), "hunter2") {
		t.Errorf("the wrapped handler did not get the record as logged: %s", host.String())
	}
	c := newTestClient(t, &Options{Logs: logs})
	queries := []map[string]any{
		{},
		{"level": "warn"},
		{"contains": "hunter2"},
		{"contains": "REDACTED"},
		{"attrs": map[string]any{"password": "hunter2"}},
		{"attrs": map[string]any{"user": "alice"}},
		{"since": "1h", "limit": 1},
	}
	for _, q := range queries {
		res, err := c.CallTool(LogsToolName, q)
		if err != nil || res.IsError {
			t.Fatalf("%v: %v", q, err)
		}
		all := resultJSON(t, res)
		for _, s := range secretValues {
			if strings.Contains(all, s) {
				t.Errorf("query %v: answer holds the secret %q", q, s)
			}
		}
	}
	all := call[logsResult](t, c, LogsToolName, map[string]any{})
	if all.Matched != 6 || len(all.Records) != 6 {
		t.Fatalf("%d records, want 6", len(all.Records))
	}
	// Newest first; the redacted values are marked, the rest kept.
	first, last := all.Records[0], all.Records[5]
	if first.Message != "valuer" || last.Message != "login" {
		t.Errorf("order: %q ... %q", first.Message, last.Message)
	}
	if last.Attrs["password"] != Redacted || last.Attrs["user"] != "alice" || last.Attrs["dsn"] != "postgres://app:[REDACTED]@db/x" {
		t.Errorf("login attrs = %v", last.Attrs)
	}
	if ev := first.Attrs["event"].(map[string]any); ev["password"] != Redacted || ev["user"] != "bob" {
		t.Errorf("LogValuer attrs = %v", first.Attrs)
	}
	if last.Source == nil || !strings.HasSuffix(last.Source.ID, "runtimetools.logSecrets") || last.Source.Line == 0 {
		t.Errorf("source = %+v", last.Source)
	}
	if got := call[logsResult](t, c, LogsToolName, map[string]any{"attrs": map[string]any{"password": "hunter2"}}); got.Matched != 0 {
		t.Errorf("a secret value is searchable: %+v", got.Records)
	}
	if got := call[logsResult](t, c, LogsToolName, map[string]any{"attrs": map[string]any{"stripe.amount": 12.5}}); got.Matched != 1 {
		t.Errorf("stripe.amount = 12.5 matched %d records", got.Matched)
	}
	if got := call[logsResult](t, c, LogsToolName, map[string]any{"level": "ERROR"}); got.Matched != 1 || got.Records[0].Attrs["status"] != 500.0 {
		t.Errorf("level error: %+v", got.Records)
	}
}

func TestLogSecretKeysConfigurable(t *testing.T) {
	logs := newLogs(t, nil, &LogRingOptions{SecretKeys: append(DefaultSecretKeys(), "ssn")})
	slog.New(logs).Info("x", "SSN", "078-05-1120", "password", "p")
	recs := records(logs)
	if recs[0]["SSN"] != Redacted || recs[0]["password"] != Redacted {
		t.Errorf("record = %v", recs[0])
	}
}

func TestLogRingBounds(t *testing.T) {
	logs := newLogs(t, nil, &LogRingOptions{MaxRecords: 10})
	logger := slog.New(logs)
	for i := range 25 {
		logger.Info("n", "i", i)
	}
	recs, stats := logs.ring.snapshot()
	if len(recs) != 10 || stats.Stored != 25 || stats.Evicted != 15 {
		t.Fatalf("count bound: %d records, stats %+v", len(recs), stats)
	}
	if got := records(logs); got[0]["i"] != json64("15") || got[9]["i"] != json64("24") {
		t.Errorf("kept %v .. %v, want 15 .. 24", got[0]["i"], got[9]["i"])
	}

	logs = newLogs(t, nil, &LogRingOptions{MaxBytes: 4096})
	logger = slog.New(logs)
	big := strings.Repeat("x", 500)
	for i := range 40 {
		logger.Info("big", "i", i, "v", big)
	}
	_, stats = logs.ring.snapshot()
	if stats.Bytes > 4096 || stats.Records < 4 || stats.Records > 8 || stats.Stored != 40 {
		t.Errorf("byte bound: %+v", stats)
	}
	// One record over the per-record bound (a quarter of MaxBytes) is cut.
	logger.Info("huge", "v", strings.Repeat("y", 5000))
	got := records(logs)
	lastRec := got[len(got)-1]
	if v := lastRec["v"].(string); len(v) >= 1024 || !strings.HasPrefix(v, "yyy") {
		t.Errorf("huge value kept at %d bytes", len(v))
	}
	recs, _ = logs.ring.snapshot()
	if r, _ := decodeRecord(recs[0]); !r.truncated {
		t.Error("the cut record is not marked truncated")
	}
}

// TestLogRingModel checks the ring against a model: random record sizes,
// the newest records that fit both bounds, in order.
func TestLogRingModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		maxRecords, maxBytes := 1+rng.IntN(40), 4096+rng.IntN(8192)
		logs := newLogs(t, nil, &LogRingOptions{MaxRecords: maxRecords, MaxBytes: maxBytes})
		logger := slog.New(logs)
		var sizes []int
		for i := range 200 {
			n := rng.IntN(maxBytes / 4)
			logger.Info("m", "i", i, "pad", strings.Repeat("p", n))
			recs, stats := logs.ring.snapshot()
			sizes = append(sizes, len(recs[0]))
			if stats.Records > maxRecords || stats.Bytes > maxBytes {
				t.Fatalf("trial %d: bounds broken: %+v", trial, stats)
			}
			// Every kept record is one of the newest, in order, and the
			// newest is always kept.
			got := records(logs)
			for j, m := range got {
				want := i - len(got) + 1 + j
				if m["i"] != json64(fmt.Sprint(want)) {
					t.Fatalf("trial %d step %d: record %d is %v, want %d", trial, i, j, m["i"], want)
				}
			}
			// It keeps at least what fits in half the buffer.
			fit, total := 0, 0
			for k := len(sizes) - 1; k >= 0 && fit < maxRecords && total+sizes[k] <= maxBytes/2; k-- {
				fit++
				total += sizes[k]
			}
			if len(got) < fit {
				t.Fatalf("trial %d step %d: kept %d records, %d fit", trial, i, len(got), fit)
			}
		}
	}
}

func TestLogRingConcurrent(t *testing.T) {
	logs := newLogs(t, slog.NewJSONHandler(io.Discard, nil), &LogRingOptions{MaxRecords: 100, MaxBytes: 8192})
	logger := slog.New(logs)
	c := newTestClient(t, &Options{Logs: logs})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				logger.Info("concurrent", "g", g, "i", i, "token", "never")
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			res, err := c.CallTool(LogsToolName, map[string]any{"limit": 200})
			if err != nil || res.IsError || strings.Contains(resultJSON(t, res), "never") {
				t.Errorf("query during logging: %v", err)
			}
		}
	})
	wg.Wait()
	_, stats := logs.ring.snapshot()
	if stats.Stored != 2000 {
		t.Errorf("stored %d records, want 2000", stats.Stored)
	}
}

func TestLogRingLevels(t *testing.T) {
	var host bytes.Buffer
	// The ring keeps debug records the host's handler drops.
	logs := newLogs(t, slog.NewTextHandler(&host, nil), &LogRingOptions{Level: slog.LevelDebug})
	logger := slog.New(logs)
	logger.Debug("quiet")
	logger.Info("loud")
	if strings.Contains(host.String(), "quiet") || !strings.Contains(host.String(), "loud") {
		t.Errorf("host output: %s", host.String())
	}
	if got := records(logs); len(got) != 2 {
		t.Errorf("kept %d records, want 2", len(got))
	}
	// Without a level the ring keeps what the host's handler keeps.
	logs = newLogs(t, slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}), nil)
	slog.New(logs).Info("dropped")
	slog.New(logs).Error("kept", "err", errors.New("boom"), "at", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "d", 1500*time.Millisecond)
	got := records(logs)
	if len(got) != 1 || got[0]["err"] != "boom" || got[0]["at"] != "2026-01-02T03:04:05Z" || got[0]["d"] != "1.5s" {
		t.Errorf("kept %v", got)
	}
}

// panicky is a value whose String method panics.
type panicky struct{}

func (panicky) String() string { panic("boom") }

func TestLogRingSurvivesBadValues(t *testing.T) {
	logs := newLogs(t, nil, nil)
	slog.New(logs).Info("bad", "v", panicky{}, "nilerr", error(nil), "b", []byte("raw"))
	got := records(logs)
	if len(got) != 1 || !strings.Contains(got[0]["v"].(string), "PANIC") || got[0]["nilerr"] != "<nil>" || got[0]["b"] != "raw" {
		t.Errorf("kept %v", got)
	}
}

func TestLogRingAddsNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	bare := slog.New(slog.NewJSONHandler(io.Discard, nil))
	ring := slog.New(newLogs(t, slog.NewJSONHandler(io.Discard, nil), nil))
	ctx := context.Background()
	logRecord := func(l *slog.Logger) func() {
		return func() { l.LogAttrs(ctx, slog.LevelInfo, "request served", benchAttrs...) }
	}
	// Warm the pools.
	for range 100 {
		logRecord(ring)()
	}
	a, b := testing.AllocsPerRun(1000, logRecord(bare)), testing.AllocsPerRun(1000, logRecord(ring))
	if b > a {
		t.Errorf("allocations per record: %v with the ring, %v without", b, a)
	}
}

// benchAttrs are the attributes of a typical request record.
var benchAttrs = []slog.Attr{
	slog.String("method", "GET"), slog.String("path", "/api/orders/17"), slog.Int("status", 200),
	slog.Duration("elapsed", 1234*time.Microsecond), slog.String("request_id", "c0ffee-1234"),
	slog.Bool("cached", false), slog.Any("err", errors.New("upstream slow")), slog.String("token", "s3cret"),
}

// BenchmarkLogRing logs a typical record through a JSON handler and
// through slog.DiscardHandler, each bare and wrapped in a LogRing, in
// the same run: the difference is what the ring adds per record (the
// bound is 1 µs and no allocation).
func BenchmarkLogRing(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"json", slog.NewJSONHandler(io.Discard, nil)},
		{"json+ring", newLogs(b, slog.NewJSONHandler(io.Discard, nil), nil)},
		{"discard", slog.DiscardHandler},
		{"discard+ring", newLogs(b, slog.DiscardHandler, &LogRingOptions{Level: slog.LevelInfo})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			logger := slog.New(bc.h)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				logger.LogAttrs(ctx, slog.LevelInfo, "request served", benchAttrs...)
			}
			reportCPU(b, cpu)
		})
	}
}

func TestSecretsMatch(t *testing.T) {
	def := newSecrets(nil)
	for key, want := range map[string]bool{
		"password": true, "DB_PASSWORD": true, "apiKey": true, "X-Auth-Token": true, "Set-Cookie": true,
		"authorization": true, "client_secret": true, "passwd": true, "credentials": true, "monkey": true,
		"user": false, "status": false, "": false, "k": false, "pass": true, "tok": false, "request_id": false,
		"dbPass": true, "pwd": true, "auth": true, "session": true, "jwt": true, "bearer": true, "otp": true, "pin": true,
		"private": true, "sig": true, "apikey": true, "PINCode": true, "sigV4": true, "otp_code": true, "JWTToken": true,
		"hotkeys": false, "spinner": false, "design": false, "mapping": false, "topic": false,
	} {
		if got := def.match(key); got != want {
			t.Errorf("match(%q) = %v, want %v", key, got, want)
		}
	}
	custom := newSecrets([]string{"SSN", "x"})
	for key, want := range map[string]bool{"ssn": true, "user_SSN": true, "max": true, "password": false, "": false} {
		if got := custom.match(key); got != want {
			t.Errorf("custom match(%q) = %v, want %v", key, got, want)
		}
	}
	if none := newSecrets([]string{}); none.match("password") {
		t.Error("an empty list matches")
	}
}

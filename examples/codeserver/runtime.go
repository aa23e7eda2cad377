package main

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/runtimetools"
)

// maxGoroutines is where the goroutines health check starts failing.
const maxGoroutines = 10000

// registerRuntime adds the runtime tools (goroutines, metrics, profiles,
// logs, build, expvar, health) and returns the logger the server logs
// with: it keeps the recent records for runtime_logs and passes them on
// to logger's handler. runtime_profile's hot lines quote the source from
// the catalog's snapshot.
func registerRuntime(ts *mcp.ToolSet, logger *slog.Logger, snap fs.FS, catalog *codetools.Catalog) (*slog.Logger, error) {
	logs, err := runtimetools.NewLogRing(logger.Handler(), nil)
	if err != nil {
		return nil, err
	}
	health, err := runtimetools.NewHealth(&runtimetools.HealthOptions{Timeout: 2 * time.Second, Logger: logger})
	if err != nil {
		return nil, err
	}
	err = health.Add("snapshot", func(context.Context) error {
		if _, err := fs.Stat(snap, "manifest.json"); errors.Is(err, fs.ErrNotExist) {
			return errors.New("no snapshot generated yet: run go generate ./examples/codeserver and build again")
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = health.Add("goroutines", func(context.Context) error {
		if n := runtime.NumGoroutine(); n > maxGoroutines {
			return fmt.Errorf("%d goroutines, more than %d: see runtime_goroutines", n, maxGoroutines)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The server's expvar variables, for runtime_vars (this command serves
	// its own mux, not http.DefaultServeMux, where expvar puts /debug/vars).
	vars := func(f func(string, fmt.Stringer)) {
		expvar.Do(func(kv expvar.KeyValue) { f(kv.Key, kv.Value) })
	}
	source := func(ctx context.Context, file string, first, last int) ([]string, error) {
		ft, err := catalog.File(ctx, codetools.FileQuery{Path: file, StartLine: first, EndLine: last})
		if err != nil {
			return nil, err
		}
		return strings.Split(strings.TrimSuffix(ft.Text, "\n"), "\n"), nil
	}
	if err := runtimetools.Register(ts, &runtimetools.Options{Logs: logs, Health: health, Vars: vars, Source: source, Logger: logger}); err != nil {
		return nil, err
	}
	return slog.New(logs), nil
}

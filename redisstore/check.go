package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Open returns a Store keeping tasks in rdb after checking, with a few
// round trips, that Redis keeps them as tasks need:
//
//   - the lease (Options.Lease) lasts at least 10 round trips to Redis, as
//     measured now: renewals each third of a lease need room for a slow
//     one; a shorter lease is refused (ErrLeaseTooShort);
//   - Redis does not evict task keys: maxmemory-policy is noeviction, on
//     every primary; any other policy is refused (ErrEviction), or logged at
//     ERROR with Options.AllowEviction;
//   - persistence: with neither RDB snapshots (save) nor the append-only
//     file (appendonly), a restart of Redis loses every task, which is
//     logged as a warning.
//
// Settings Redis does not let it read (CONFIG GET refused, as on some
// managed services) are logged as unchecked, not refused. opts may be nil.
// The Store returned follows the change feed at once, remembering the
// tasks created (Options.RememberTasks); Close stops it.
func Open(ctx context.Context, rdb redis.UniversalClient, opts *Options) (*Store, error) {
	s := newStore(rdb, opts)
	if opts != nil && strings.ContainsAny(opts.Prefix, "{}") {
		return nil, fmt.Errorf("redisstore: Options.Prefix %q contains a brace; it would change the keys' hash tags", opts.Prefix)
	}
	if err := s.Check(ctx); err != nil {
		return nil, err
	}
	s.rememberBirths()
	return s, nil
}

// Errors of Open and Check, for errors.Is.
var (
	// ErrLeaseTooShort: the lease is shorter than 10 round trips to Redis.
	ErrLeaseTooShort = errors.New("redisstore: lease too short for the round trip to Redis")
	// ErrEviction: Redis may evict task keys (maxmemory-policy).
	ErrEviction = errors.New("redisstore: Redis may evict tasks")
)

// safeRoundTrips is how many round trips to Redis a lease must last.
const safeRoundTrips = 10

// Check runs Open's checks on s's Redis.
func (s *Store) Check(ctx context.Context) error {
	var rtt time.Duration
	for range 5 {
		start := time.Now()
		if err := s.rdb.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("redisstore: Redis does not answer: %w", err)
		}
		rtt = max(rtt, time.Since(start))
	}
	var errs []error
	// The scripts, loaded on every primary: from the first task on, each
	// costs one round trip.
	for _, sc := range []*redis.Script{createScript, swapScript, renewScript} {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "redisstore: loading the scripts failed; they are sent with their first use",
				slog.String("error", err.Error()))
			break
		}
	}
	if rtt*safeRoundTrips > s.lease {
		errs = append(errs, fmt.Errorf("%w: the lease of %v lasts fewer than %d round trips to Redis (measured up to %v); "+
			"make mcp.TaskOptions.Lease (and Options.Lease) at least %v",
			ErrLeaseTooShort, s.lease, safeRoundTrips, rtt.Round(time.Microsecond), (rtt*safeRoundTrips).Round(time.Millisecond)))
	}
	var mu sync.Mutex
	each := func(fn func(ctx context.Context, c *redis.Client) error) error {
		switch c := s.rdb.(type) {
		case *redis.ClusterClient:
			return c.ForEachMaster(ctx, fn)
		case *redis.Client:
			return fn(ctx, c)
		}
		return nil // another UniversalClient: nothing to read
	}
	err := each(func(ctx context.Context, c *redis.Client) error {
		addr := c.Options().Addr
		conf, err := c.ConfigGet(ctx, "*").Result() // one round trip; some services refuse a pattern
		if err != nil {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "redisstore: cannot read Redis's configuration; check yourself that maxmemory-policy is noeviction and persistence is on",
				slog.String("redis", addr), slog.String("error", err.Error()))
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		policy, maxmem := conf["maxmemory-policy"], conf["maxmemory"]
		if policy != "" && policy != "noeviction" {
			err := fmt.Errorf("%w: %s has maxmemory-policy %s (maxmemory %s): under memory pressure it deletes task keys, "+
				"and acknowledged tasks are lost; set maxmemory-policy noeviction (a full Redis then refuses new tasks, which callers retry)",
				ErrEviction, addr, policy, maxmem)
			if s.evict {
				s.logger.LogAttrs(ctx, slog.LevelError, "redisstore: Redis may evict tasks (allowed by Options.AllowEviction)",
					slog.String("redis", addr), slog.String("error", err.Error()))
			} else {
				errs = append(errs, err)
			}
		}
		if save, aof := strings.TrimSpace(conf["save"]), conf["appendonly"]; save == "" && aof != "yes" && len(conf) > 0 {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "redisstore: Redis has no persistence (save \"\", appendonly no): a restart loses every task",
				slog.String("redis", addr))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("redisstore: reading Redis's configuration: %w", err))
	}
	return errors.Join(errs...)
}

// Logger adapts a *slog.Logger to the go-redis client's logger
// (redis.SetLogger), so that its own lines ("failed to dial", pool and
// pub/sub reconnection trouble) reach the service's log, at WARN, with at
// most Burst lines per Interval (the rest counted, and the count logged
// with the next line let through). go-redis has one logger per process:
// redis.SetLogger replaces it for every client, so set it once, in main:
//
//	redis.SetLogger(redisstore.NewLogger(logger, nil))
type Logger struct {
	l        *slog.Logger
	interval time.Duration
	burst    int

	mu         sync.Mutex
	start      time.Time // of the current interval
	n          int       // lines let through in it
	suppressed int
}

// LoggerOptions configure a Logger; nil means the defaults.
type LoggerOptions struct {
	Interval time.Duration // default 10 seconds
	Burst    int           // default 5
}

// NewLogger returns a Logger writing to l. opts may be nil.
func NewLogger(l *slog.Logger, opts *LoggerOptions) *Logger {
	g := &Logger{l: l, interval: 10 * time.Second, burst: 5}
	if opts != nil {
		if opts.Interval > 0 {
			g.interval = opts.Interval
		}
		if opts.Burst > 0 {
			g.burst = opts.Burst
		}
	}
	return g
}

// Printf implements go-redis's logger interface.
func (g *Logger) Printf(ctx context.Context, format string, v ...any) {
	now := time.Now()
	g.mu.Lock()
	if now.Sub(g.start) >= g.interval {
		g.start, g.n = now, 0
	}
	if g.n >= g.burst {
		g.suppressed++
		g.mu.Unlock()
		return
	}
	g.n++
	suppressed := g.suppressed
	g.suppressed = 0
	g.mu.Unlock()
	msg := fmt.Sprintf(format, v...)
	if len(msg) > 1024 {
		msg = msg[:1024] + "…"
	}
	attrs := []slog.Attr{slog.String("message", msg)}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int("suppressed", suppressed))
	}
	g.l.LogAttrs(ctx, slog.LevelWarn, "redis client", attrs...)
}

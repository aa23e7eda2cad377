package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/redis/go-redis/v9"
)

// ChangeNotifier is an mcp.ChangeNotifier for replicas: it reports the
// tool-list changes of this process's registry and of every other
// replica's, through Redis pub/sub on the prefix's "tools" channel. Set it
// as Options.Changes of each replica's Server, so that a
// subscriptions/listen stream on any replica hears of a change made on
// any.
//
// A change of the local registry reaches local watchers at once (even with
// Redis down) and the other replicas through Redis; a replica ignores the
// echo of its own changes.
type ChangeNotifier struct {
	rdb     redis.UniversalClient
	channel string
	origin  string // this notifier's identity in messages
	logger  *slog.Logger
	stopLoc func()
	feed    *feed

	mu       sync.Mutex
	watchers map[uint64]func()
	next     uint64
	closed   bool
}

// NewChangeNotifier returns a ChangeNotifier that follows local (usually
// the replica's *mcp.ToolSet) and the other replicas' changes. opts may be
// nil. Close it when the replica stops.
func NewChangeNotifier(rdb redis.UniversalClient, local mcp.ChangeNotifier, opts *Options) *ChangeNotifier {
	var b [8]byte
	_, _ = rand.Read(b[:])
	p := opts.prefix()
	c := &ChangeNotifier{rdb: rdb, channel: p + "tools", origin: hex.EncodeToString(b[:]), logger: opts.logger(),
		watchers: map[uint64]func(){}}
	c.feed = newFeed(rdb, c.channel, false)
	c.stopLoc = local.Watch(c.localChange)
	return c
}

// localChange tells local watchers at once and the other replicas through
// Redis; publishing waits for nobody.
func (c *ChangeNotifier) localChange() {
	c.notify()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.rdb.Publish(ctx, c.channel, c.origin).Err(); err != nil {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "redisstore: publishing a tool-list change failed; other replicas miss it",
				slog.String("error", err.Error()))
		}
	}()
}

// notify calls the watchers.
func (c *ChangeNotifier) notify() {
	c.mu.Lock()
	fns := make([]func(), 0, len(c.watchers))
	for _, k := range slices.Sorted(maps.Keys(c.watchers)) {
		fns = append(fns, c.watchers[k])
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Watch implements mcp.ChangeNotifier: fn is called after every change of
// the tool list on any replica, until stop is called. It subscribes to
// Redis while it has watchers.
func (c *ChangeNotifier) Watch(fn func()) (stop func()) {
	c.mu.Lock()
	id := c.next
	c.next++
	c.watchers[id] = fn
	c.mu.Unlock()
	stopFeed := c.feed.watch(func(origin string) {
		if origin != c.origin {
			fn()
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.watchers, id)
			c.mu.Unlock()
			stopFeed()
		})
	}
}

// Close stops following the local registry. Watchers already registered
// stop hearing of local changes; those of other replicas still reach them
// until they stop.
func (c *ChangeNotifier) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.stopLoc()
	}
	return nil
}

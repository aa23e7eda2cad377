package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/redis/go-redis/v9"
)

// Options configure a Store and a ChangeNotifier. The zero value is usable.
type Options struct {
	// Prefix starts every key and channel name, so that services sharing a
	// Redis keep apart. Default "embedmcp:".
	Prefix string
	// Logger receives what fails in the background (a tool-list change not
	// published). Nil discards.
	Logger *slog.Logger
}

func (o *Options) prefix() string {
	if o == nil || o.Prefix == "" {
		return "embedmcp:"
	}
	return o.Prefix
}

func (o *Options) logger() *slog.Logger {
	if o == nil || o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Store is an mcp.TaskStore in Redis. Each task is a hash (version,
// status, owner, the encoded record) that expires with the task; the
// replica running a working task holds a lease, a key of its own that
// expires unless renewed. Create, Swap and Renew are Lua scripts, atomic
// in Redis, each one round trip; Create and Swap publish the change on the
// prefix's "tasks" channel, which Watch follows.
//
// Use a single Redis (or a primary with its replicas for failover), not a
// Redis Cluster: a script touches a task's hash and its lease key, which a
// cluster may place on different nodes.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	feed   *feed
}

// NewStore returns a Store keeping tasks in rdb. opts may be nil. The Store
// opens no connection and starts no goroutine until it is used; Watch
// subscribes while it has watchers.
func NewStore(rdb redis.UniversalClient, opts *Options) *Store {
	p := opts.prefix()
	return &Store{rdb: rdb, prefix: p, feed: newFeed(rdb, p+"tasks")}
}

func (s *Store) taskKey(id string) string  { return s.prefix + "task:" + id }
func (s *Store) leaseKey(id string) string { return s.prefix + "lease:" + id }

// millis is d in whole milliseconds, at least 1 (PX and PEXPIRE refuse 0).
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// KEYS: task, lease. ARGV: record, status, owner, ttl ms, lease ms,
// channel, change (the message published).
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 's', ARGV[2], 'o', ARGV[3], 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[2] == 'working' then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5]) end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1`)

// KEYS: task, lease. ARGV: record, status, owner, ttl ms, lease ms,
// channel, change, previous version, version.
var swapScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[8] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[9], 's', ARGV[2], 'o', ARGV[3], 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[2] == 'working' then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
else
  redis.call('DEL', KEYS[2])
end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1`)

// KEYS: task and lease of each task in turn. ARGV: owner, lease ms.
// Returns the 1-based positions of the tasks not renewed.
var renewScript = redis.NewScript(`
local stopped = {}
for i = 1, #KEYS, 2 do
  local t = redis.call('HMGET', KEYS[i], 's', 'o')
  if t[1] == 'working' and t[2] == ARGV[1] then
    redis.call('SET', KEYS[i + 1], ARGV[1], 'PX', ARGV[2])
  else
    stopped[#stopped + 1] = (i + 1) / 2
  end
end
return stopped`)

// wireChange is the message a change publishes.
type wireChange struct {
	ID      string         `json:"id"`
	Version uint64         `json:"v"`
	Status  mcp.TaskStatus `json:"s"`
	Owner   string         `json:"o,omitempty"`
}

// change encodes the change that storing rec makes.
func change(rec *mcp.TaskRecord) string {
	b, _ := json.Marshal(wireChange{rec.ID, rec.Version, rec.Status, rec.Owner})
	return string(b)
}

// ttl is how long rec has left to live.
func ttl(rec *mcp.TaskRecord) int64 {
	return max(time.Until(rec.Expires).Milliseconds(), 1)
}

// Create implements mcp.TaskStore.
func (s *Store) Create(ctx context.Context, rec *mcp.TaskRecord, lease time.Duration) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task %s: %w", rec.ID, err)
	}
	n, err := createScript.Run(ctx, s.rdb, []string{s.taskKey(rec.ID), s.leaseKey(rec.ID)},
		data, string(rec.Status), rec.Owner, ttl(rec), millis(lease), s.feed.channel, change(rec)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: creating task %s: %w", rec.ID, err)
	case n == 0:
		return mcp.ErrTaskExists
	}
	return nil
}

// Get implements mcp.TaskStore: one round trip (the record and its lease,
// pipelined).
func (s *Store) Get(ctx context.Context, id string) (*mcp.TaskRecord, error) {
	var data *redis.StringCmd
	var left *redis.DurationCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		data = p.HGet(ctx, s.taskKey(id), "d")
		left = p.PTTL(ctx, s.leaseKey(id))
		return nil
	})
	if errors.Is(err, redis.Nil) || errors.Is(data.Err(), redis.Nil) {
		return nil, mcp.ErrTaskNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading task %s: %w", id, err)
	}
	var rec mcp.TaskRecord
	if err := json.Unmarshal([]byte(data.Val()), &rec); err != nil {
		return nil, fmt.Errorf("redisstore: task %s is not a record: %w", id, err)
	}
	if d := left.Val(); d > 0 {
		rec.Lease = time.Now().Add(d)
	}
	return &rec, nil
}

// Swap implements mcp.TaskStore.
func (s *Store) Swap(ctx context.Context, rec *mcp.TaskRecord, lease time.Duration) error {
	if rec.Version < 2 {
		return mcp.ErrTaskConflict
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task %s: %w", rec.ID, err)
	}
	n, err := swapScript.Run(ctx, s.rdb, []string{s.taskKey(rec.ID), s.leaseKey(rec.ID)},
		data, string(rec.Status), rec.Owner, ttl(rec), millis(lease), s.feed.channel, change(rec),
		strconv.FormatUint(rec.Version-1, 10), strconv.FormatUint(rec.Version, 10)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: changing task %s: %w", rec.ID, err)
	case n == -1:
		return mcp.ErrTaskNotFound
	case n == 0:
		return mcp.ErrTaskConflict
	}
	return nil
}

// renewBatch bounds the tasks one Renew script handles.
const renewBatch = 512

// Renew implements mcp.TaskStore: one round trip per 512 tasks.
func (s *Store) Renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
	var stopped []string
	for len(ids) > 0 {
		batch := ids[:min(len(ids), renewBatch)]
		ids = ids[len(batch):]
		keys := make([]string, 0, 2*len(batch))
		for _, id := range batch {
			keys = append(keys, s.taskKey(id), s.leaseKey(id))
		}
		pos, err := renewScript.Run(ctx, s.rdb, keys, owner, millis(lease)).Int64Slice()
		if err != nil {
			return stopped, fmt.Errorf("redisstore: renewing leases: %w", err)
		}
		for _, p := range pos {
			if p >= 1 && int(p) <= len(batch) {
				stopped = append(stopped, batch[p-1])
			}
		}
	}
	return stopped, nil
}

// Watch implements mcp.TaskStore: fn gets every change of a task made
// through any Store on the same Redis and prefix. The Store subscribes
// while it has watchers; messages published while the connection is down
// are lost (the Server polls as well).
func (s *Store) Watch(fn func(mcp.TaskChange)) (stop func()) {
	return s.feed.watch(func(payload string) {
		var w wireChange
		if json.Unmarshal([]byte(payload), &w) == nil && w.ID != "" {
			fn(mcp.TaskChange{ID: w.ID, Version: w.Version, Status: w.Status, Owner: w.Owner})
		}
	})
}

// feed fans the messages of one Redis channel out to watchers. It is
// subscribed while it has watchers.
type feed struct {
	rdb     redis.UniversalClient
	channel string

	mu       sync.Mutex
	watchers map[uint64]func(string)
	next     uint64
	sub      *redis.PubSub
	done     chan struct{} // closed when the current subscription's reader ends
}

func newFeed(rdb redis.UniversalClient, channel string) *feed {
	return &feed{rdb: rdb, channel: channel, watchers: map[uint64]func(string){}}
}

func (f *feed) watch(fn func(string)) (stop func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.next
	f.next++
	f.watchers[id] = fn
	if f.sub == nil {
		f.sub = f.rdb.Subscribe(context.Background(), f.channel)
		f.done = make(chan struct{})
		go f.read(f.sub, f.done)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.watchers, id)
			var sub *redis.PubSub
			var done chan struct{}
			if len(f.watchers) == 0 && f.sub != nil {
				sub, done, f.sub, f.done = f.sub, f.done, nil, nil
			}
			f.mu.Unlock()
			if sub != nil {
				_ = sub.Close()
				<-done
			}
		})
	}
}

// read delivers a subscription's messages until it is closed.
func (f *feed) read(sub *redis.PubSub, done chan struct{}) {
	defer close(done)
	for msg := range sub.Channel() {
		f.mu.Lock()
		fns := make([]func(string), 0, len(f.watchers))
		for _, fn := range f.watchers {
			fns = append(fns, fn)
		}
		f.mu.Unlock()
		for _, fn := range fns {
			fn(msg.Payload)
		}
	}
}

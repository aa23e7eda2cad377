package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/embedmcp/mcp/tasks"
	"github.com/redis/go-redis/v9"
)

// Options configure a Store and a ChangeNotifier. The zero value is usable.
type Options struct {
	// Prefix starts every key and channel name, so that services sharing a
	// Redis keep apart. Default "embedmcp:". It must not contain braces
	// (they would change the keys' hash tags on a Redis Cluster).
	Prefix string
	// Logger receives what fails in the background (a tool-list change not
	// published) and what Open finds. Nil discards.
	Logger *slog.Logger
	// Shards is, on a Redis Cluster, how many hash tags tasks are spread
	// over: each has its slot (spaced evenly over the cluster's 16384) and
	// its sharded pub/sub channel, which every replica subscribes to. It is
	// part of the key names: keep it while tasks are stored. Default 12;
	// at most 1024. Ignored elsewhere.
	Shards int
	// Lease is the lease of the Servers using the store
	// (mcp.TaskOptions.Lease), which Open checks against the round trip to
	// Redis. Default tasks.DefaultLease.
	Lease time.Duration
	// AllowEviction makes Open log at ERROR instead of refusing when Redis
	// may evict task keys (a maxmemory-policy other than noeviction). An
	// evicted task is lost: the replica that ran it reports it failed, the
	// others cannot tell it from one that never existed.
	AllowEviction bool
	// WaitReplicas, when positive, makes Create and Swap wait until that
	// many replicas of the Redis primary have the write (WAIT, pipelined
	// with the write: no extra round trip, but the replication's latency),
	// or WaitTimeout passes, in which case they fail (mcp's callers retry),
	// though the write may survive. A task acknowledged with it survives
	// the failover of its primary. Default 0: asynchronous replication, and
	// a failover may lose the last writes (the replica that ran such a task
	// reports it lost).
	WaitReplicas int
	// WaitTimeout bounds the wait for WaitReplicas. Default 1 second.
	WaitTimeout time.Duration
	// RememberTasks is how many of the most recent task creations (on any
	// replica, heard on the change feed) the Store remembers, so that a
	// task Redis lost (a failover before replicating it) is answered as
	// failed, saying so, rather than as unknown (see Store.Get). About 200
	// bytes each. Default DefaultRememberTasks; negative: none (and no
	// subscription of the Store's own).
	RememberTasks int
	// MaxTasksPerPrincipal caps the tasks stored at once for one caller
	// (one Principal of one Server), so that one caller cannot fill Redis
	// for the others: Create beyond it fails with tasks.ErrQuota, as
	// tasks.MemoryStore's does. Each caller's tasks are counted in a
	// sorted set by expiry, checked and updated by the create script
	// (atomically, no extra round trip). On a Redis Cluster the count is
	// kept per shard, in the shard's slot, each allowed an equal part of
	// the cap (rounded up; at least 1): a caller is refused once one shard
	// holds its part, before the whole cap is reached (with the default
	// 1 000 over 12 shards, 84 each, typically after about 850 tasks).
	// Default tasks.DefaultMaxTasksPerPrincipal; negative: no cap.
	MaxTasksPerPrincipal int
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

// Store is an tasks.Store in Redis: a single node, a primary with
// replicas under Sentinel (redis.NewFailoverClient) or a Redis Cluster
// (redis.NewClusterClient). Each task is a hash (version, status, owner,
// the encoded record) that expires with the task; the replica running a
// working task holds a lease, a key of its own that expires unless
// renewed. A task's two keys share a hash tag ({ID}; on a cluster, the
// task's shard), so that the Lua scripts of Create, Swap and Renew, each
// atomic and one round trip, touch one slot. Create and Swap publish the
// change, which Watch follows: on the prefix's "tasks" channel, or on a
// cluster with sharded pub/sub (SPUBLISH) on the channel of the task's
// shard.
//
// What Redis must guarantee for tasks (Open checks what it can): no
// eviction (maxmemory-policy noeviction; a full Redis then refuses new
// tasks with tasks.ErrStoreFull), and persistence (appendonly yes) when
// tasks must survive a restart. Errors that pass (no connection, a
// failover under way) wrap tasks.ErrUnavailable, which the Server
// answers -32001 with Retry-After.
//
// Once used, a Store follows the change feed to remember recent task
// creations (Options.RememberTasks); Close stops that.
type Store struct {
	rdb     redis.UniversalClient
	prefix  string
	cluster bool
	tags    []string // the shards' hash tags on a cluster
	feeds   []*feed  // one per channel
	pub     string   // PUBLISH or SPUBLISH
	wait    int
	waitFor time.Duration
	logger  *slog.Logger
	lease   time.Duration
	evict   bool

	owned int // cap of one caller's tasks (per shard on a cluster); 0: none

	births     *births // nil: none remembered
	birthOnce  sync.Once
	stopBirths func()
}

// newStore returns a Store keeping tasks in rdb, unchecked. opts may be
// nil. The Store opens no connection and starts no goroutine until it is
// used; Watch subscribes while it has watchers.
func newStore(rdb redis.UniversalClient, opts *Options) *Store {
	p := opts.prefix()
	s := &Store{rdb: rdb, prefix: p, pub: "PUBLISH", logger: opts.logger(), lease: tasks.DefaultLease,
		waitFor: time.Second}
	if opts != nil {
		s.wait, s.evict = opts.WaitReplicas, opts.AllowEviction
		if opts.WaitTimeout > 0 {
			s.waitFor = opts.WaitTimeout
		}
		if opts.Lease > 0 {
			s.lease = opts.Lease
		}
	}
	s.owned = tasks.DefaultMaxTasksPerPrincipal
	if opts != nil && opts.MaxTasksPerPrincipal != 0 {
		s.owned = max(opts.MaxTasksPerPrincipal, 0)
	}
	if n := DefaultRememberTasks; opts == nil || opts.RememberTasks >= 0 {
		if opts != nil && opts.RememberTasks > 0 {
			n = opts.RememberTasks
		}
		s.births = &births{max: n}
	}
	if _, ok := rdb.(*redis.ClusterClient); ok {
		n := 12
		if opts != nil && opts.Shards > 0 {
			n = min(opts.Shards, 1024)
		}
		s.cluster, s.pub, s.tags = true, "SPUBLISH", shardTags(n)
		if s.owned > 0 {
			s.owned = max((s.owned+n-1)/n, 1)
		}
		for _, tag := range s.tags {
			s.feeds = append(s.feeds, newFeed(rdb, p+"tasks:{"+tag+"}", true))
		}
	} else {
		s.feeds = []*feed{newFeed(rdb, p+"tasks", false)}
	}
	for _, f := range s.feeds {
		f.linger = feedLinger
	}
	return s
}

// tag is the hash tag of task id's keys.
func (s *Store) tag(id string) string {
	if !s.cluster {
		return id
	}
	return s.tags[shardOf(id, len(s.tags))]
}

// channel is the channel of task id's changes.
func (s *Store) channel(id string) string {
	if !s.cluster {
		return s.feeds[0].channel
	}
	return s.feeds[shardOf(id, len(s.tags))].channel
}

// taskKey and leaseKey are task id's keys: "task:{ID}" and "lease:{ID}"
// after the prefix; on a cluster "task:{shard}ID" and "lease:{shard}ID".
func (s *Store) taskKey(id string) string {
	if s.cluster {
		return s.prefix + "task:{" + s.tag(id) + "}" + id
	}
	return s.prefix + "task:{" + id + "}"
}

func (s *Store) leaseKey(id string) string {
	if s.cluster {
		return s.prefix + "lease:{" + s.tag(id) + "}" + id
	}
	return s.prefix + "lease:{" + id + "}"
}

// ownedKey is the key counting the tasks of rec's caller: "owned:" and a
// digest of its Principal and Server after the prefix; on a cluster, in
// the slot of rec's shard ("owned:{shard}digest").
func (s *Store) ownedKey(rec *tasks.Record) string {
	d := sha256.Sum256([]byte(rec.Principal + "\x00" + rec.Server))
	h := hex.EncodeToString(d[:16])
	if s.cluster {
		return s.prefix + "owned:{" + s.tag(rec.ID) + "}" + h
	}
	return s.prefix + "owned:" + h
}

// millis is d in whole milliseconds, at least 1 (PX and PEXPIRE refuse 0).
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// KEYS: task, lease, the caller's tasks (a sorted set of IDs by expiry).
// ARGV: record, status, owner, ttl ms, lease ms, channel, change (the
// message published), publish command, the caller's cap (0: none), ID.
// The record's lifetime is set here, from the time it has left, in
// Redis's clock; Swap keeps it. Returns 1, 0 (the ID is taken) or -2 (the
// caller is at the cap).
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local cap = tonumber(ARGV[9])
local now
if cap > 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf') >= cap then return -2 end
end
-- The first write: refused (OOM) by a full Redis before any other.
redis.call('HSET', KEYS[1], 'v', '1', 's', ARGV[2], 'o', ARGV[3], 'd', ARGV[1])
if cap > 0 then
  local ttl = tonumber(ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  redis.call('ZADD', KEYS[3], now + ttl, ARGV[10])
  if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[2] == 'working' then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5]) end
redis.call(ARGV[8], ARGV[6], ARGV[7])
return 1`)

// KEYS: task, lease. ARGV: record, status, owner, (unused), lease ms,
// channel, change, previous version, version, publish command. The
// record keeps the lifetime Create gave it.
var swapScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[8] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[9], 's', ARGV[2], 'o', ARGV[3], 'd', ARGV[1])
if ARGV[2] == 'working' then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
else
  redis.call('DEL', KEYS[2])
end
redis.call(ARGV[10], ARGV[6], ARGV[7])
return 1`)

// KEYS: task and lease of each task in turn (one slot on a cluster).
// ARGV: owner, lease ms. Returns the 1-based positions of the tasks not
// renewed.
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
	ID      string       `json:"id"`
	Version uint64       `json:"v"`
	Status  tasks.Status `json:"s"`
	Owner   string       `json:"o,omitempty"`
	Born    *wireBirth   `json:"b,omitempty"` // Create's
}

// change encodes the change that storing rec makes.
func change(rec *tasks.Record) string {
	b, _ := json.Marshal(wireChange{ID: rec.ID, Version: rec.Version, Status: rec.Status, Owner: rec.Owner})
	return string(b)
}

// created is the change that Create makes: with the task's birth.
func created(rec *tasks.Record) *wireChange {
	return &wireChange{ID: rec.ID, Version: rec.Version, Status: rec.Status, Owner: rec.Owner, Born: &wireBirth{
		Created: rec.Created.UnixNano(), Expires: rec.Expires.UnixNano(), Poll: int64(rec.PollInterval),
		Principal: rec.Principal, Server: rec.Server, Permission: rec.Permission, Tool: rec.Tool,
		Protocol: rec.ProtocolVersion}}
}

// ttl is how long rec has left to live, by this process's clock (the one
// that set rec.Expires when it created the task).
func ttl(rec *tasks.Record) int64 {
	return max(time.Until(rec.Expires).Milliseconds(), 1)
}

// trouble reacts to a failed operation: on a cluster, the client reloads
// the slots' owners (go-redis does it by itself only on MOVED or after a
// minute, and never after a failed pipeline), so that a failover is
// followed within moments.
func (s *Store) trouble(err error) {
	if cc, ok := s.rdb.(*redis.ClusterClient); ok && err != nil && !errors.Is(err, redis.Nil) {
		cc.ReloadState(context.Background())
	}
}

// run runs sc on keys (one slot), then, when the store waits for
// replicas, WAIT on the same connection, pipelined: one round trip.
func (s *Store) run(ctx context.Context, sc *redis.Script, keys []string, args ...any) (*redis.Cmd, error) {
	if s.wait <= 0 {
		cmd := sc.Run(ctx, s.rdb, keys, args...)
		return cmd, cmd.Err()
	}
	var c redis.Cmdable = s.rdb
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		m, err := cc.MasterForKey(ctx, keys[0])
		if err != nil {
			return nil, err
		}
		c = m
	}
	exec := func(sha bool) (*redis.Cmd, *redis.Cmd) {
		var cmd, w *redis.Cmd
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			if sha {
				cmd = sc.EvalSha(ctx, p, keys, args...)
			} else {
				cmd = sc.Eval(ctx, p, keys, args...)
			}
			w = p.Do(ctx, "WAIT", s.wait, s.waitFor.Milliseconds())
			return nil
		})
		return cmd, w
	}
	cmd, w := exec(true)
	if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		cmd, w = exec(false)
	}
	if err := cmd.Err(); err != nil {
		return cmd, err
	}
	if n, err := w.Int64(); err != nil || n < int64(s.wait) {
		return cmd, fmt.Errorf("%w: %d of %d replicas have the write after %v (WAIT): %v",
			ErrNotReplicated, n, s.wait, s.waitFor, err)
	}
	return cmd, nil
}

// ErrNotReplicated: a write reached the Redis primary but not
// Options.WaitReplicas of its replicas within Options.WaitTimeout; a
// failover now may lose it. The Store's operations wrap it with
// tasks.ErrUnavailable: the caller is asked to retry.
var ErrNotReplicated = errors.New("redisstore: write not replicated in time")

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task %s: %w", rec.ID, err)
	}
	s.rememberBirths()
	w := created(rec)
	msg, _ := json.Marshal(w)
	cmd, err := s.run(ctx, createScript, []string{s.taskKey(rec.ID), s.leaseKey(rec.ID), s.ownedKey(rec)},
		data, string(rec.Status), rec.Owner, ttl(rec), millis(lease), s.channel(rec.ID), msg, s.pub, s.owned, rec.ID)
	if err != nil {
		s.trouble(err)
		return failed("creating task "+rec.ID, err)
	}
	switch n, _ := cmd.Int(); n {
	case 0:
		return tasks.ErrExists
	case -2:
		return tasks.ErrQuota
	}
	if s.births != nil {
		s.births.note(w)
	}
	return nil
}

// Get implements tasks.Store: one round trip (the record and its lease,
// pipelined, in one slot), and no write. A task Redis no longer has though
// it was created recently (Options.RememberTasks) and has not expired is
// answered failed, saying that the store lost it (see DefaultRememberTasks),
// not tasks.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	s.rememberBirths()
	var data *redis.StringCmd
	var left *redis.DurationCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		data = p.HGet(ctx, s.taskKey(id), "d")
		left = p.PTTL(ctx, s.leaseKey(id))
		return nil
	})
	if errors.Is(err, redis.Nil) || errors.Is(data.Err(), redis.Nil) {
		if rec := s.lostTask(id); rec != nil {
			return rec, nil
		}
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		s.trouble(err)
		return nil, failed("reading task "+id, err)
	}
	var rec tasks.Record
	if err := json.Unmarshal([]byte(data.Val()), &rec); err != nil {
		return nil, fmt.Errorf("redisstore: task %s is not a record: %w", id, err)
	}
	if d := left.Val(); d > 0 {
		rec.Lease = time.Now().Add(d)
	}
	return &rec, nil
}

// Swap implements tasks.Store.
func (s *Store) Swap(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	if rec.Version < 2 {
		return tasks.ErrConflict
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding task %s: %w", rec.ID, err)
	}
	cmd, err := s.run(ctx, swapScript, []string{s.taskKey(rec.ID), s.leaseKey(rec.ID)},
		data, string(rec.Status), rec.Owner, 0, millis(lease), s.channel(rec.ID), change(rec),
		strconv.FormatUint(rec.Version-1, 10), strconv.FormatUint(rec.Version, 10), s.pub)
	if err != nil {
		s.trouble(err)
		return failed("changing task "+rec.ID, err)
	}
	switch n, _ := cmd.Int(); n {
	case -1:
		return tasks.ErrNotFound
	case 0:
		return tasks.ErrConflict
	}
	return nil
}

// renewBatch bounds the tasks one Renew script handles.
const renewBatch = 512

// Renew implements tasks.Store: one round trip per 512 tasks (on a
// cluster, per shard, the shards' in parallel).
func (s *Store) Renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
	groups := map[string][]string{}
	for _, id := range ids {
		t := ""
		if s.cluster {
			t = s.tag(id)
		}
		groups[t] = append(groups[t], id)
	}
	var (
		mu      sync.Mutex
		stopped []string
		errs    []error
		wg      sync.WaitGroup
	)
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.renew(ctx, owner, g, lease)
			mu.Lock()
			stopped, errs = append(stopped, st...), append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return stopped, errors.Join(errs...)
}

// renew renews ids, all of one slot on a cluster.
func (s *Store) renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
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
			s.trouble(err)
			return stopped, failed("renewing leases", err)
		}
		for _, p := range pos {
			if p >= 1 && int(p) <= len(batch) {
				stopped = append(stopped, batch[p-1])
			}
		}
	}
	return stopped, nil
}

// Watch implements tasks.Store: fn gets every change of a task made
// through any Store on the same Redis and prefix. The Store subscribes
// while it has watchers (on a cluster, to each shard's channel), and for a
// minute after the last stopped (as long as it is open when it remembers
// births, Options.RememberTasks), so that a replica's next task does not
// pay for subscribing again; messages
// published while the connection is down are lost (the Server polls as
// well).
func (s *Store) Watch(fn func(tasks.Change)) (stop func()) {
	deliver := func(payload string) {
		var w wireChange
		if json.Unmarshal([]byte(payload), &w) == nil && w.ID != "" {
			fn(tasks.Change{ID: w.ID, Version: w.Version, Status: w.Status, Owner: w.Owner})
		}
	}
	stops := make([]func(), len(s.feeds))
	for i, f := range s.feeds {
		stops[i] = f.watch(deliver)
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// feed fans the messages of one Redis channel out to watchers. It is
// subscribed while it has watchers.
type feed struct {
	rdb     redis.UniversalClient
	channel string
	sharded bool // SSUBSCRIBE (a cluster's shard channel), not SUBSCRIBE
	// linger keeps the subscription that long after its last watcher
	// stopped (0: it ends at once): subscribing again costs a connection
	// and a round trip (per shard on a cluster) in the path of the next
	// task, as a replica's last task ends and the next starts.
	linger time.Duration

	mu       sync.Mutex
	idle     *time.Timer // ends the subscription after linger
	watchers map[uint64]func(string)
	next     uint64
	sub      *redis.PubSub
	done     chan struct{} // closed when the current subscription's reader ends
}

func newFeed(rdb redis.UniversalClient, channel string, sharded bool) *feed {
	return &feed{rdb: rdb, channel: channel, sharded: sharded, watchers: map[uint64]func(string){}}
}

func (f *feed) watch(fn func(string)) (stop func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.next
	f.next++
	f.watchers[id] = fn
	if f.idle != nil {
		f.idle.Stop()
		f.idle = nil
	}
	if f.sub == nil {
		if f.sharded {
			f.sub = f.rdb.SSubscribe(context.Background(), f.channel)
		} else {
			f.sub = f.rdb.Subscribe(context.Background(), f.channel)
		}
		f.done = make(chan struct{})
		go f.read(f.sub, f.done)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.watchers, id)
			if len(f.watchers) == 0 && f.sub != nil && f.linger > 0 {
				if f.idle == nil {
					f.idle = time.AfterFunc(f.linger, f.endIdle)
				}
				f.mu.Unlock()
				return
			}
			f.mu.Unlock()
			f.endIdle()
		})
	}
}

// endIdle ends the subscription if it has no watcher.
func (f *feed) endIdle() {
	f.mu.Lock()
	var sub *redis.PubSub
	var done chan struct{}
	if len(f.watchers) == 0 && f.sub != nil {
		sub, done, f.sub, f.done = f.sub, f.done, nil, nil
	}
	if f.idle != nil {
		f.idle.Stop()
		f.idle = nil
	}
	f.mu.Unlock()
	if sub != nil {
		_ = sub.Close()
		<-done
	}
}

// feedLinger is how long a Store's task feed stays subscribed without
// watchers.
const feedLinger = time.Minute

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

package redisstore

import (
	"time"

	"github.com/redis/go-redis/v9"
)

// SetFeedLinger sets how long s's task feeds stay subscribed without
// watchers (0: they end at once, as before feeds lingered).
func SetFeedLinger(s *Store, d time.Duration) {
	for _, f := range s.feeds {
		f.mu.Lock()
		f.linger = d
		f.mu.Unlock()
	}
}

// NewUnchecked returns a Store without Open's checks of Redis, for tests
// that set Redis up unlike production (evicting, short leases).
func NewUnchecked(rdb redis.UniversalClient, opts *Options) *Store { return newStore(rdb, opts) }

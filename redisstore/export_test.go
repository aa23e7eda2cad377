package redisstore

import "time"

// SetFeedLinger sets how long s's task feeds stay subscribed without
// watchers (0: they end at once, as before feeds lingered).
func SetFeedLinger(s *Store, d time.Duration) {
	for _, f := range s.feeds {
		f.mu.Lock()
		f.linger = d
		f.mu.Unlock()
	}
}

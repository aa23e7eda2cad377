package redisstore

import (
	"errors"
	"fmt"

	"github.com/embedmcp/mcp/tasks"
	"github.com/redis/go-redis/v9"
)

// failed wraps a Redis error of op: as tasks.ErrStoreFull too when Redis
// refused for want of memory, as tasks.ErrUnavailable too when the
// error passes (see unavailable), so that the Server answers -32001 with
// Retry-After rather than an internal error.
func failed(op string, err error) error {
	switch {
	case redis.IsOOMError(err):
		return fmt.Errorf("redisstore: %s: %w: %w", op, tasks.ErrStoreFull, err)
	case unavailable(err):
		return fmt.Errorf("redisstore: %s: %w: %w", op, tasks.ErrUnavailable, err)
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}

// unavailable reports whether err says that Redis cannot serve for now,
// though it may in a moment: no connection (refused, reset, timed out, a
// closed pool, the request's deadline), a failover under way (a primary
// turned replica: READONLY; a cluster slot without a primary: CLUSTERDOWN;
// MASTERDOWN, LOADING, TRYAGAIN; MOVED or ASK still answered after the
// client's redirects, as while the cluster's slot map settles), or a write
// not replicated in time (ErrNotReplicated). Other replies of Redis (a
// script error, WRONGTYPE, NOPERM) are not passing, and stay internal
// errors.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) {
		return false
	}
	if errors.Is(err, ErrNotReplicated) {
		return true
	}
	var reply redis.Error
	if !errors.As(err, &reply) {
		return true // not a reply of Redis: the connection, a timeout, a closed client
	}
	if _, ok := redis.IsMovedError(err); ok {
		return true
	}
	if _, ok := redis.IsAskError(err); ok {
		return true
	}
	return redis.IsReadOnlyError(err) || redis.IsClusterDownError(err) || redis.IsTryAgainError(err) ||
		redis.IsMasterDownError(err) || redis.IsLoadingError(err) || redis.IsNoReplicasError(err) ||
		redis.IsMaxClientsError(err)
}

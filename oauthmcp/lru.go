package oauthmcp

import (
	"container/list"
	"crypto/sha256"
)

// tokenKey is a token's SHA-256: caches key tokens by it, never by the
// token itself.
type tokenKey = [sha256.Size]byte

// lru is a map of at most max entries that drops its least recently used
// entry to make room for a new one: every operation is O(1), whatever the
// size. It is not safe for concurrent use; its owner locks.
type lru[V any] struct {
	max   int
	items map[tokenKey]*list.Element
	order list.List // of *lruItem[V], most recently used first
}

type lruItem[V any] struct {
	key tokenKey
	val V
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, items: make(map[tokenKey]*list.Element)}
}

// get returns the value of key, making it the most recently used.
func (c *lru[V]) get(key tokenKey) (V, bool) {
	e, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruItem[V]).val, true
}

// put sets the value of key, dropping the least recently used entry when
// the map is full.
func (c *lru[V]) put(key tokenKey, val V) {
	if e, ok := c.items[key]; ok {
		e.Value.(*lruItem[V]).val = val
		c.order.MoveToFront(e)
		return
	}
	if len(c.items) >= c.max {
		if last := c.order.Back(); last != nil {
			delete(c.items, last.Value.(*lruItem[V]).key)
			c.order.Remove(last)
		}
	}
	c.items[key] = c.order.PushFront(&lruItem[V]{key: key, val: val})
}

// remove drops key, if present.
func (c *lru[V]) remove(key tokenKey) {
	if e, ok := c.items[key]; ok {
		delete(c.items, key)
		c.order.Remove(e)
	}
}

// has reports whether key is present, without making it more recent.
func (c *lru[V]) has(key tokenKey) bool {
	_, ok := c.items[key]
	return ok
}

func (c *lru[V]) len() int { return len(c.items) }

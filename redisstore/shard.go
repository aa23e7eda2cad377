package redisstore

import (
	"hash/fnv"
	"strconv"
)

// A Redis Cluster places a key by its hash tag (the part between the first
// "{" and the next "}"): crc16 of it, modulo 16384 slots. On a cluster the
// Store spreads tasks over shards, each a hash tag chosen so that the
// shards' slots are spaced evenly over the 16384: a cluster whose primaries
// hold contiguous, equal ranges of slots (as redis-cli --cluster create
// makes them) gets an equal share of the shards. Each shard has its
// sharded pub/sub channel, in its slot, that the Lua scripts publish to.

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = 16384

// shardTags returns n hash tags whose slots are spaced evenly: the i-th is
// the first of "s0", "s1", ... in [i*16384/n, (i+1)*16384/n).
func shardTags(n int) []string {
	tags := make([]string, n)
	for i := range n {
		lo, hi := i*clusterSlots/n, (i+1)*clusterSlots/n
		for k := 0; ; k++ {
			t := "s" + strconv.Itoa(k)
			if sl := slot(t); sl >= lo && sl < hi {
				tags[i] = t
				break
			}
		}
	}
	return tags
}

// shardOf is the shard of task id among n.
func shardOf(id string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// slot is the cluster slot of a hash tag: CRC16/XMODEM modulo 16384.
func slot(tag string) int {
	var crc uint16
	for i := 0; i < len(tag); i++ {
		crc ^= uint16(tag[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % clusterSlots
}

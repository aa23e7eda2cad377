//go:build !snapshot

package main

import "embed"

// snapshotFS is nil in a build without the snapshot tag.
var snapshotFS *embed.FS

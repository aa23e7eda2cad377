//go:build snapshot

package main

import "embed"

// snapshotFS is the -deps snapshot scripts/test.d/codetools-scale.sh
// generates into snapshot/ before building with -tags snapshot.
//
//go:embed snapshot
var embedded embed.FS

var snapshotFS = &embedded

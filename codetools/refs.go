package codetools

import (
	"errors"

	"github.com/embedmcp/mcp/codetools/internal/nav"
)

// refs returns the snapshot's references, reading them on first use.
func (b *baseIndex) refTable() (*nav.RefTable, error) {
	b.refsOnce.Do(func() {
		switch {
		case b.Snap == nil:
			b.refsErr = errNoSnapshotRefs
		default:
			b.refs, b.refsErr = nav.LoadRefs(b.Snap, b.MainModule())
		}
	})
	return b.refs, b.refsErr
}

var errNoSnapshotRefs = errors.New("no source snapshot is embedded, and references are computed when the snapshot is generated")

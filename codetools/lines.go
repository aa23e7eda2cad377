package codetools

import (
	"bytes"
	"strings"
	"sync"
)

// lineCache keeps the line starts of the snapshot files that answers
// quoted lately, so that a line's text is one small read.
type lineCache struct {
	mu    sync.Mutex
	files map[int32][]int32
}

// maxEcho bounds how much of an argument an error repeats, and of a line
// an answer quotes.
const maxEcho = 200

// maxCachedFiles bounds the files whose line starts a catalog keeps; the
// cache is emptied when it is full.
const maxCachedFiles = 128

// lineStarts returns the byte offsets at which the lines of snapshot file
// fi start, followed by the file's size.
func (b *indexBase) lineStarts(fi int32) ([]int32, error) {
	c := &b.lines
	c.mu.Lock()
	starts, ok := c.files[fi]
	c.mu.Unlock()
	if ok {
		return starts, nil
	}
	data, err := b.snap.ReadFile(fi, nil)
	if err != nil {
		return nil, err
	}
	starts = make([]int32, 1, bytes.Count(data, []byte{'\n'})+2)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off < len(data) {
			starts = append(starts, int32(off))
		}
	}
	starts = append(starts, int32(len(data)))
	c.mu.Lock()
	if c.files == nil || len(c.files) >= maxCachedFiles {
		c.files = map[int32][]int32{}
	}
	c.files[fi] = starts
	c.mu.Unlock()
	return starts, nil
}

// lineText returns line n of snapshot file fi without its line end and
// leading white space, cut to maxEcho bytes; "" if it cannot be read.
func (b *indexBase) lineText(fi, n int32) string {
	if b.snap == nil || fi < 0 {
		return ""
	}
	starts, err := b.lineStarts(fi)
	if err != nil || n < 1 || int(n) >= len(starts) {
		return ""
	}
	text, err := b.snap.ReadSpan(fi, starts[n-1], starts[n])
	if err != nil {
		return ""
	}
	return cutText(strings.TrimSpace(text), maxEcho)
}

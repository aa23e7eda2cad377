package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/embedmcp/mcp/internal/codesnap"
)

// Bounds of the decompressed files a gzFS keeps.
const (
	// maxInflate bounds a file Inflate reads whole into memory.
	maxInflate = 64 << 20
	// cacheBytes bounds the inflated files kept for the next Open, so
	// that code_file and code_definition reading the same file again do
	// not inflate it again.
	cacheBytes = 4 << 20
	// cacheFiles bounds their number.
	cacheFiles = 64
)

// gzFS is a snapshot file system whose files may be stored compressed:
// a name present in the underlying file system as name +
// codesnap.CompressedSuffix is opened from there and read decompressed, as a stream (through a
// pool of decompressors, so that reading every file while the catalog is
// built allocates little) or, through Inflate, whole and cached.
type gzFS struct {
	fsys  fs.FS
	pool  sync.Pool // of *decompressor
	mu    sync.Mutex
	cache map[string][]byte
	order []string // cached names, least recently used first
	size  int
}

// NewFS returns fsys reading the files stored compressed under
// codesnap.CompressedSuffix as if they were stored plain. Files stored
// plain are read as they are.
func NewFS(fsys fs.FS) fs.FS {
	if g, ok := fsys.(*gzFS); ok {
		return g
	}
	return &gzFS{fsys: fsys, cache: map[string][]byte{}}
}

// Open opens name: its compressed form if there is one (as mcpsnapshot
// writes it), the file itself otherwise.
func (g *gzFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return g.fsys.Open(name)
	}
	if data, ok := g.cached(name); ok {
		return newMemFile(name, data), nil
	}
	cf, cerr := g.fsys.Open(name + codesnap.CompressedSuffix)
	if cerr != nil {
		return g.fsys.Open(name)
	}
	fi, cerr := cf.Stat()
	if cerr != nil {
		cf.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: cerr}
	}
	size := int64(0)
	if ra, ok := cf.(io.ReaderAt); ok && fi.Size() >= 18 {
		// The gzip trailer ends with the size modulo 2³².
		var isize [4]byte
		if _, err := ra.ReadAt(isize[:], fi.Size()-4); err == nil {
			size = int64(binary.LittleEndian.Uint32(isize[:]))
		}
	}
	d, _ := g.pool.Get().(*decompressor)
	if d == nil {
		d = &decompressor{br: bufio.NewReaderSize(cf, 16<<10)}
	} else {
		d.br.Reset(cf)
	}
	if d.zr == nil {
		d.zr, cerr = gzip.NewReader(d.br)
	} else {
		cerr = d.zr.Reset(d.br)
	}
	if cerr != nil {
		cf.Close()
		d.br.Reset(nil)
		g.pool.Put(d)
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("reading compressed file: %w", cerr)}
	}
	return &streamFile{name: name, d: d, c: cf, g: g, size: size, mod: fi.ModTime()}, nil
}

// Inflate returns the content of file name of fsys, through the cache of a
// file system NewFS returned: code_file and code_definition reading the
// same file again do not inflate it again.
func Inflate(fsys fs.FS, name string) ([]byte, error) {
	g, ok := fsys.(*gzFS)
	if !ok {
		return fs.ReadFile(fsys, name)
	}
	if data, ok := g.cached(name); ok {
		return data, nil
	}
	f, err := g.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sf, ok := f.(*streamFile)
	if !ok {
		return io.ReadAll(f) // stored plain
	}
	data := make([]byte, 0, min(sf.size, maxInflate)+1)
	for {
		n, err := sf.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) > maxInflate {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("decompresses to more than its bound")}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	g.put(name, data)
	return data, nil
}

// cached returns name's inflated content if it is cached.
func (g *gzFS) cached(name string) ([]byte, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	data, ok := g.cache[name]
	if ok {
		for i, n := range g.order {
			if n == name {
				g.order = append(append(g.order[:i:i], g.order[i+1:]...), name)
				break
			}
		}
	}
	return data, ok
}

// put caches name's inflated content, evicting the least recently opened
// files beyond the bounds.
func (g *gzFS) put(name string, data []byte) {
	if len(data) > cacheBytes/4 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.cache[name]; ok {
		return
	}
	g.cache[name] = data
	g.order = append(g.order, name)
	g.size += len(data)
	for len(g.order) > cacheFiles || g.size > cacheBytes {
		old := g.order[0]
		g.order = g.order[1:]
		g.size -= len(g.cache[old])
		delete(g.cache, old)
	}
}

// memFile is an inflated file: it reads, seeks and reads at offsets, as
// an embed.FS file does.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func newMemFile(name string, data []byte) *memFile {
	return &memFile{Reader: bytes.NewReader(data), name: name, size: int64(len(data))}
}

func (f *memFile) Stat() (fs.FileInfo, error) { return fileInfo{f.name, f.size, time.Time{}}, nil }
func (f *memFile) Close() error               { return nil }

// decompressor is a gzip reader with its buffered input: the buffer is a
// flate.Reader, so that resetting the gzip reader allocates nothing.
type decompressor struct {
	br *bufio.Reader
	zr *gzip.Reader
}

// streamFile is a compressed file read as a stream.
type streamFile struct {
	name string
	d    *decompressor
	c    io.Closer
	g    *gzFS
	size int64 // from the gzip trailer, 0 if unknown
	mod  time.Time
}

func (f *streamFile) Read(p []byte) (int, error) {
	if f.d == nil {
		return 0, fs.ErrClosed
	}
	return f.d.zr.Read(p)
}

// Close closes the file and returns its decompressor to the pool.
func (f *streamFile) Close() error {
	if f.d == nil {
		return fs.ErrClosed
	}
	f.d.br.Reset(nil)
	f.g.pool.Put(f.d)
	f.d = nil
	return f.c.Close()
}

// Stat reports the size the gzip trailer gives (0 if unknown).
func (f *streamFile) Stat() (fs.FileInfo, error) { return fileInfo{f.name, f.size, f.mod}, nil }

// fileInfo describes a decompressed file.
type fileInfo struct {
	name string
	size int64
	mod  time.Time
}

func (fi fileInfo) Name() string       { return pathBase(fi.name) }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return 0o444 }
func (fi fileInfo) ModTime() time.Time { return fi.mod }
func (fi fileInfo) IsDir() bool        { return false }
func (fi fileInfo) Sys() any           { return nil }

func pathBase(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[i+1:]
		}
	}
	return name
}

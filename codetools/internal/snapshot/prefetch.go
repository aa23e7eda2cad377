package snapshot

// prefetchDepth is how many files a prefetcher reads ahead.
const prefetchDepth = 2

// prefetched is a file a prefetcher read.
type prefetched struct {
	fi   int32
	data []byte
	err  error
}

// prefetcher reads the Go files of a snapshot in order on another
// goroutine while ReadDecls goes through the index, which lists them in
// that order, so that decompressing the next files overlaps with building
// the entries of this one. It reuses prefetchDepth+2 buffers.
type prefetcher struct {
	s    *Snapshot
	next chan prefetched
	free chan []byte
	done chan struct{}
	held []byte // the buffer of the file the caller holds
	// pending is a file read ahead of the one asked for.
	pending    prefetched
	hasPending bool
	// hits and misses count the files read ahead and not.
	hits, misses int
}

// prefetch starts a prefetcher over the Go files of s.
func (s *Snapshot) prefetch() *prefetcher {
	p := &prefetcher{s: s, next: make(chan prefetched, prefetchDepth), free: make(chan []byte, prefetchDepth+2),
		done: make(chan struct{})}
	for range prefetchDepth + 1 {
		p.free <- make([]byte, 0, 32<<10) // not nil: ReadFile reads a nil buffer through the cache
	}
	go func() {
		defer close(p.next)
		for fi := range int32(s.GoFiles) {
			var buf []byte
			select {
			case buf = <-p.free:
			case <-p.done:
				return
			}
			data, err := s.ReadFile(fi, buf)
			select {
			case p.next <- prefetched{fi, data, err}:
			case <-p.done:
				return
			}
		}
	}()
	return p
}

// read returns the content of file fi: from the prefetcher when it read
// fi, else read into buf. Files are asked for in increasing order; those
// skipped are dropped.
func (p *prefetcher) read(fi int32, buf []byte) ([]byte, error) {
	for {
		f, ok := p.pending, p.hasPending
		if ok {
			p.hasPending = false
		} else {
			f, ok = <-p.next
		}
		switch {
		case !ok:
			p.misses++
			return p.s.ReadFile(fi, buf)
		case f.fi > fi:
			p.pending, p.hasPending = f, true
			p.misses++
			return p.s.ReadFile(fi, buf)
		case f.fi < fi:
			p.release(f.data)
			continue
		}
		p.hits++
		p.release(p.held)
		p.held = f.data
		return f.data, f.err
	}
}

// release gives a buffer back to the prefetcher.
func (p *prefetcher) release(b []byte) {
	select {
	case p.free <- b:
	default:
	}
}

// stop ends the prefetcher.
func (p *prefetcher) stop() {
	close(p.done)
	for range p.next { // let it finish a read in progress
	}
}

package redistest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a TCP proxy in front of a Redis for fault tests: it can delay
// what passes in each direction, and cut every connection (and refuse new
// ones) while it is down.
type Proxy struct {
	Addr   string // where clients connect
	target string
	ln     net.Listener
	delay  atomic.Int64 // one-way delay, nanoseconds
	down   atomic.Bool

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy listens on addr ("127.0.0.1:0" for any port) and forwards to
// target.
func NewProxy(addr, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// SetDelay delays every chunk of bytes by d in each direction (a round
// trip takes 2d more).
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// SetDown cuts every connection and refuses new ones while down is true.
func (p *Proxy) SetDown(down bool) {
	p.down.Store(down)
	if down {
		p.CutAll()
	}
}

// CutAll closes every connection open through the proxy.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

// Close stops the proxy and cuts its connections.
func (p *Proxy) Close() {
	p.ln.Close()
	p.CutAll()
	p.wg.Wait()
}

func (p *Proxy) track(c net.Conn, add bool) {
	p.mu.Lock()
	if add {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.down.Load() {
			c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, true)
		p.track(u, true)
		p.wg.Add(2)
		go p.pipe(c, u)
		go p.pipe(u, c)
	}
}

// pipe copies from src to dst, each chunk after the delay, in order.
func (p *Proxy) pipe(src, dst net.Conn) {
	defer p.wg.Done()
	defer func() {
		src.Close()
		dst.Close()
		p.track(src, false)
		p.track(dst, false)
	}()
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range q {
			if d := time.Until(ch.at); d > 0 {
				time.Sleep(d)
			}
			if _, err := dst.Write(ch.b); err != nil {
				for range q { // drain
				}
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			q <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(time.Duration(p.delay.Load()))}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			close(q)
			<-done
			return
		}
	}
}

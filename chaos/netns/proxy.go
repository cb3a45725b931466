package netns

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards every connection accepted on a listener to an upstream
// address, holding back the bytes of each direction by a configurable
// latency plus a random jitter. Bytes of one connection stay in order (it
// is TCP); connections overtake each other when the jitter is larger
// than the gap between their messages, which reorders messages between
// nodes that talk over several connections.
type Proxy struct {
	ln       net.Listener
	upstream string
	latency  atomic.Int64 // nanoseconds
	jitter   atomic.Int64 // nanoseconds

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewProxy serves ln, forwarding to upstream, until Close.
func NewProxy(ln net.Listener, upstream string) *Proxy {
	p := &Proxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p
}

// SetLatency sets the delay of every byte forwarded from now on: latency
// plus a uniformly random share of jitter. Zero turns the delay off.
func (p *Proxy) SetLatency(latency, jitter time.Duration) {
	p.latency.Store(int64(latency))
	p.jitter.Store(int64(jitter))
}

// Close stops accepting, closes every forwarded connection and waits for
// the proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// forward joins one accepted connection to a new upstream connection.
func (p *Proxy) forward(down net.Conn) {
	defer p.wg.Done()
	up, err := net.DialTimeout("tcp", p.upstream, 2*time.Second)
	if err != nil {
		down.Close()
		return
	}
	if !p.track(down, up) {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(up, down) }()
	go func() { defer wg.Done(); p.pipe(down, up) }()
	wg.Wait()
	p.untrack(down, up)
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.conns, c)
	}
}

// chunk is bytes read from one side, to be written at release.
type chunk struct {
	data    []byte
	release time.Time
}

// pipe copies src to dst through a delay line; when either side fails
// both are closed, so the other direction ends too.
func (p *Proxy) pipe(dst, src net.Conn) {
	line := make(chan chunk, 256)
	go p.drain(dst, src, line)
	var last time.Time
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			last = p.releaseAt(last)
			line <- chunk{buf[:n], last}
		}
		if err != nil {
			close(line)
			return
		}
	}
}

// releaseAt is when bytes read now may go out: after the delay, and never
// before bytes read earlier.
func (p *Proxy) releaseAt(prev time.Time) time.Time {
	d := time.Duration(p.latency.Load())
	if j := p.jitter.Load(); j > 0 {
		d += time.Duration(rand.Int64N(j))
	}
	t := time.Now().Add(d)
	if t.Before(prev) {
		return prev
	}
	return t
}

// drain writes the delay line's chunks to dst when due.
func (p *Proxy) drain(dst, src net.Conn, line <-chan chunk) {
	for c := range line {
		if wait := time.Until(c.release); wait > 0 {
			time.Sleep(wait)
		}
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	for range line {
	}
}

var _ io.Closer = (*Proxy)(nil)

package raftstore

import (
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// raftStreamLayer is raft's StreamLayer over the peer mux: it accepts the
// connections whose first byte is protoRaft and dials with that byte.
type raftStreamLayer struct {
	*subListener
	advertise net.Addr
	dial      func(string, time.Duration) (net.Conn, error)
	conns     *connTracker
}

var _ raft.StreamLayer = (*raftStreamLayer)(nil)

// Dial implements raft.StreamLayer.
func (l *raftStreamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return dialPeer(l.dial, string(addr), protoRaft, timeout)
}

// Addr returns the advertised address, which raft sends to its peers.
func (l *raftStreamLayer) Addr() net.Addr { return l.advertise }

// Accept implements net.Listener: every raft connection is tracked until
// its handler closes it.
func (l *raftStreamLayer) Accept() (net.Conn, error) {
	for {
		c, err := l.subListener.Accept()
		if err != nil {
			return nil, err
		}
		if tc, ok := l.conns.track(c); ok {
			return tc, nil
		}
		c.Close()
	}
}

// connTracker knows the raft connections being served. Raft handles a
// heartbeat on its connection's goroutine, which Shutdown does not stop:
// one arriving while the store closes would write the term to a closed
// log store and panic. Close therefore ends every connection and waits for
// its handler before closing the stores.
type connTracker struct {
	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	wg     sync.WaitGroup
	closed bool
}

func newConnTracker() *connTracker { return &connTracker{conns: map[*trackedConn]struct{}{}} }

// track starts tracking c; false once the tracker is closed.
func (t *connTracker) track(c net.Conn) (net.Conn, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	tc := &trackedConn{Conn: c, t: t}
	t.conns[tc] = struct{}{}
	t.wg.Add(1)
	return tc, true
}

func (t *connTracker) done(c *trackedConn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
	t.wg.Done()
}

// closeAll closes every tracked connection and waits up to timeout for
// their handlers to return.
func (t *connTracker) closeAll(timeout time.Duration) {
	t.mu.Lock()
	t.closed = true
	for c := range t.conns {
		_ = c.Conn.Close()
	}
	t.mu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// trackedConn reports its first Close to its tracker.
type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.t.done(c) })
	return err
}

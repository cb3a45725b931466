package raftstore

import (
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// noPipelining is the transport's MaxRPCsInFlight: 1 turns hashicorp/raft's
// pipelined replication off, and the leader sends a follower its next
// AppendEntries once the last has been answered.
//
// The pipeline (raft v1.7.3, net_transport.go and replication.go) can
// deadlock. Its channels are unbuffered at the default of 2 in flight.
// When a follower answers Success=false, or a newer term, pipelineDecode
// returns and nothing reads the pipeline's responses any more; if the
// send loop has already started one more AppendEntries, that call waits
// forever to hand its future to decodeResponses, which waits forever to
// hand the previous one to the decoder that is gone. The loop never
// returns: the follower keeps getting heartbeats, so it never calls an
// election, but no log entry reaches it again until the leader restarts,
// and Raft.Shutdown waits for the stuck goroutine, so the node cannot
// stop either. A node leaving under the fault harness hung so, with the
// stack of that AppendEntries (grafana/pyroscope#5518 found the same and
// turned pipelining off too).
//
// Without it, a follower's replication is one request in flight, each
// carrying every entry appended since the last (up to MaxAppendEntries),
// so under load the batches grow instead of the requests overlapping.
const noPipelining = 1

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

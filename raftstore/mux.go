package raftstore

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Protocol bytes: the first byte a dialer writes on a peer connection.
const (
	protoRaft byte = 1
	protoRPC  byte = 2
)

// peerMux accepts connections on the peer address and hands each to the
// listener of the protocol named by its first byte.
type peerMux struct {
	ln     net.Listener
	logger *slog.Logger
	subs   map[byte]*subListener
	// handshake bounds authentication and the protocol byte; admit
	// authenticates a connection before its protocol byte is read.
	handshake time.Duration
	admit     func(net.Conn) error
	// wg counts the connections being routed. serve alone adds to it, so
	// close waits for serve to return (served) before waiting on wg.
	wg      sync.WaitGroup
	closing chan struct{}
	served  chan struct{}
}

func newPeerMux(ln net.Listener, logger *slog.Logger, handshake time.Duration, admit func(net.Conn) error) *peerMux {
	m := &peerMux{ln: ln, logger: logger, handshake: handshake, admit: admit, subs: map[byte]*subListener{}, closing: make(chan struct{}), served: make(chan struct{})}
	for _, p := range []byte{protoRaft, protoRPC} {
		m.subs[p] = &subListener{addr: ln.Addr(), conns: make(chan net.Conn, 16), done: make(chan struct{})}
	}
	return m
}

// listener returns the net.Listener that receives connections of proto.
func (m *peerMux) listener(proto byte) *subListener { return m.subs[proto] }

// serve accepts until the mux or the underlying listener is closed. It
// must be started once for every peerMux that is closed.
func (m *peerMux) serve() {
	defer close(m.served)
	for {
		conn, err := m.ln.Accept()
		if err != nil {
			select {
			case <-m.closing:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			m.logger.Warn("peer accept failed", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		m.wg.Add(1)
		go m.route(conn)
	}
}

func (m *peerMux) route(conn net.Conn) {
	defer m.wg.Done()
	var b [1]byte
	_ = conn.SetDeadline(time.Now().Add(m.handshake))
	if err := m.admit(conn); err != nil {
		m.logger.Warn("peer connection refused", "remote", conn.RemoteAddr(), "err", err)
		conn.Close()
		return
	}
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	sub, ok := m.subs[b[0]]
	if !ok {
		m.logger.Warn("peer connection with unknown protocol", "proto", b[0], "remote", conn.RemoteAddr())
		conn.Close()
		return
	}
	select {
	case sub.conns <- conn:
	case <-sub.done:
		conn.Close()
	}
}

// close stops accepting and closes every sub-listener, then waits for
// the connections being routed.
func (m *peerMux) close() error {
	close(m.closing)
	err := m.ln.Close()
	for _, s := range m.subs {
		s.Close()
	}
	<-m.served
	m.wg.Wait()
	return err
}

// subListener is the net.Listener of one protocol.
type subListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (s *subListener) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

func (s *subListener) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

func (s *subListener) Addr() net.Addr { return s.addr }

// dialPeer connects to a peer address with dial and selects proto.
func dialPeer(dial func(string, time.Duration) (net.Conn, error), addr string, proto byte, timeout time.Duration) (net.Conn, error) {
	conn, err := dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	_ = conn.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte{proto}); err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetWriteDeadline(time.Time{})
	return conn, nil
}

package storetest

import (
	"errors"
	"net"
	"sync"
	"time"
)

// faultNet is the network between the nodes of a Cluster: plain loopback
// TCP, except that an isolated node can neither dial nor be dialed and
// loses every connection it had.
type faultNet struct {
	mu       sync.Mutex
	isolated map[string]bool              // by node name
	owner    map[string]string            // peer address -> node name
	conns    map[string]map[net.Conn]bool // node name -> open connections
}

var errIsolated = errors.New("storetest: node isolated")

func newFaultNet() *faultNet {
	return &faultNet{isolated: map[string]bool{}, owner: map[string]string{}, conns: map[string]map[net.Conn]bool{}}
}

func (f *faultNet) register(name, addr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.owner[addr] = name
}

// setIsolated cuts name off (or reconnects it); cutting off closes every
// connection it has.
func (f *faultNet) setIsolated(name string, on bool) {
	f.mu.Lock()
	f.isolated[name] = on
	var open []net.Conn
	if on {
		for c := range f.conns[name] {
			open = append(open, c)
		}
	}
	f.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
}

func (f *faultNet) track(c net.Conn, names ...string) net.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	tc := &trackedConn{Conn: c, net: f, names: names}
	for _, n := range names {
		if f.conns[n] == nil {
			f.conns[n] = map[net.Conn]bool{}
		}
		f.conns[n][tc] = true
	}
	return tc
}

func (f *faultNet) untrack(tc *trackedConn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range tc.names {
		delete(f.conns[n], tc)
	}
}

func (f *faultNet) blocked(names ...string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range names {
		if f.isolated[n] {
			return true
		}
	}
	return false
}

// dialer returns the PeerDialer of node name.
func (f *faultNet) dialer(name string) func(string, time.Duration) (net.Conn, error) {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		f.mu.Lock()
		target := f.owner[addr]
		f.mu.Unlock()
		if f.blocked(name, target) {
			return nil, errIsolated
		}
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return nil, err
		}
		return f.track(c, name, target), nil
	}
}

// listener wraps node name's peer listener.
func (f *faultNet) listener(name string, ln net.Listener) net.Listener {
	return &faultListener{Listener: ln, net: f, name: name}
}

type faultListener struct {
	net.Listener
	net  *faultNet
	name string
}

func (l *faultListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.net.blocked(l.name) {
			c.Close()
			continue
		}
		return l.net.track(c, l.name), nil
	}
}

type trackedConn struct {
	net.Conn
	net   *faultNet
	names []string
	once  sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.net.untrack(c) })
	return c.Conn.Close()
}

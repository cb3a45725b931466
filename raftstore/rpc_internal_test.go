package raftstore

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// protoListener drops the protocol byte dialPeer writes first, so that a
// plain HTTP server answers a peerClient.
type protoListener struct{ net.Listener }

func (l protoListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// TestPeerCallsKeepTheirConnection: answers too large for the server's
// buffer come chunked; the client reads them to the end, so that the next
// call reuses the connection instead of dialing (a TLS handshake between
// nodes) again.
func TestPeerCallsKeepTheirConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	big := manyReply{Replies: []rpcReply{{Rev: 7, Object: []byte(strings.Repeat("x", 64<<10))}}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(big)
	})}
	go func() { _ = srv.Serve(protoListener{ln}) }()
	t.Cleanup(func() { srv.Close() })

	var dials atomic.Int32
	c := newPeerClient(func(addr string, d time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout("tcp", addr, d)
	}, time.Second)
	t.Cleanup(c.close)
	for i := range 3 {
		var got manyReply
		if _, err := c.callInto(context.Background(), ln.Addr().String(), rpcApplyMany, nil, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Replies) != 1 || got.Replies[0].Rev != 7 {
			t.Fatalf("call %d answered %d replies", i, len(got.Replies))
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("3 calls dialed %d connections, want 1", n)
	}
}

package raftstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// peerRPCPaths are the peer RPC endpoints FuzzPeerRPC posts to, chosen
// by the input's first byte. A membership change is posted only when it
// does not decode or validate: a valid one would reconfigure the test's
// cluster.
var peerRPCPaths = []string{rpcApply, rpcReadIndex, rpcStatus, rpcMembers, rpcGet, rpcApplyMany}

// FuzzPeerRPC: whatever a peer posts to the peer RPC endpoints (a
// forwarded command, a read index or status question), the node answers
// with a well-formed reply and never panics; a membership change that
// does not decode or validate is refused before it is acted on.
func FuzzPeerRPC(f *testing.F) {
	cmd := (&fsm.Command{Type: fsm.CmdCreate, Key: "/registry/configmaps/default/fuzz", Object: []byte(`{"metadata":{"name":"fuzz"}}`)}).Encode()
	f.Add(byte(0), cmd)
	f.Add(byte(0), []byte{byte(fsm.CmdDelete), 3, 'a', 'b', 'c', 0, 0})
	f.Add(byte(0), []byte{0xff, 1, 2})
	f.Add(byte(1), []byte{})
	f.Add(byte(2), []byte(`{}`))
	f.Add(byte(3), []byte(`{"op":"add","name":"n2","peerAddr":"127.0.0.1:1"}`))
	f.Add(byte(3), []byte(`{"op":"remove","name":""}`))
	f.Add(byte(3), []byte(`{"op":"add-voter","name":"n2"}`))
	f.Add(byte(3), []byte(`[`))
	f.Add(byte(4), []byte(`{"key":"/registry/configmaps/default/fuzz","rev":1}`))
	f.Add(byte(4), []byte(`{"key":"","rev":0}`))
	f.Add(byte(5), encodeCommands([]*forwardCall{{data: cmd}, {data: []byte{0xff}}, {data: cmd}}))
	f.Add(byte(5), []byte{0x80})
	s := openFuzzStore(f)
	handler := s.rpcHandler()
	f.Fuzz(func(t *testing.T, which byte, body []byte) {
		path := peerRPCPaths[int(which)%len(peerRPCPaths)]
		if path == rpcMembers {
			if ch, err := decodeMemberChange(bytes.NewReader(body)); err == nil && ch.validate() == nil {
				return
			}
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		if path == rpcApplyMany {
			checkManyReply(t, body, w)
			return
		}
		var reply rpcReply
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &reply) != nil {
			t.Fatalf("POST %s %q: %d %s", path, body, w.Code, w.Body)
		}
		_, err := fsm.DecodeCommand(body)
		if (path == rpcMembers || path == rpcApply && err != nil) && (reply.Err == nil || reply.Err.Code != ErrCodeInvalid) {
			t.Fatalf("POST %s of what does not decode, %q, answered %+v", path, body, reply)
		}
	})
}

// checkManyReply checks the leader's answer to body posted to
// rpcApplyMany: a body that does not split is refused whole as invalid;
// otherwise every command has an answer, invalid for one that does not
// decode.
func checkManyReply(t *testing.T, body []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	var reply manyReply
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &reply) != nil {
		t.Fatalf("POST %s %q: %d %s", rpcApplyMany, body, w.Code, w.Body)
	}
	cmds, err := splitCommands(body)
	if err != nil {
		if reply.Err == nil || reply.Err.Code != ErrCodeInvalid {
			t.Fatalf("POST %s of a bad frame, %q, answered %+v", rpcApplyMany, body, reply)
		}
		return
	}
	if len(reply.Replies) != len(cmds) {
		t.Fatalf("POST %s of %d commands answered %d", rpcApplyMany, len(cmds), len(reply.Replies))
	}
	for i, cmd := range cmds {
		if _, err := fsm.DecodeCommand(cmd); err != nil && (reply.Replies[i].Err == nil || reply.Replies[i].Err.Code != ErrCodeInvalid) {
			t.Fatalf("POST %s: command %d, %q, does not decode and was answered %+v", rpcApplyMany, i, cmd, reply.Replies[i])
		}
	}
}

// decodeMemberChange is serveMembers' decoding of a forwarded change.
func decodeMemberChange(r io.Reader) (MemberChange, error) {
	var ch MemberChange
	err := json.NewDecoder(io.LimitReader(r, maxRPCBody)).Decode(&ch)
	return ch, err
}

// openFuzzStore opens a single-node store that leads, closed when f ends.
func openFuzzStore(f *testing.F) *Store {
	f.Helper()
	s, err := Open(Config{Name: "fuzz", DataDir: f.TempDir(), PeerListen: "127.0.0.1:0"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for !s.IsLeader() {
		if time.Now().After(deadline) {
			f.Fatal("the fuzz store never led")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}

// FuzzRaftTransport: any bytes a peer sends on a raft connection are
// decoded by the transport into RPCs (answered here with an error) or
// refused; the transport never panics or hangs, and closes the
// connection once the bytes end.
func FuzzRaftTransport(f *testing.F) {
	for _, seed := range raftTransportSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte{})
	f.Add([]byte{9})
	f.Add([]byte{0, 0xdf, 0xff, 0xff, 0xff, 0xff})
	layer := newPipeLayer()
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: layer, MaxPool: 1, Timeout: time.Second, Logger: hclog.NewNullLogger(),
	})
	f.Cleanup(func() { _ = trans.Close() })
	stop := make(chan struct{})
	f.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case rpc := <-trans.Consumer():
				rpc.Respond(nil, errors.New("fuzz: refused"))
			case <-stop:
				return
			}
		}
	}()
	f.Fuzz(func(t *testing.T, data []byte) {
		closed := layer.connect(data)
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("the transport still holds the connection of %q", data)
		}
	})
}

// raftTransportSeeds are well-formed raft RPCs as a peer's transport
// writes them: its type byte, then the msgpack request.
func raftTransportSeeds(f *testing.F) [][]byte {
	f.Helper()
	reqs := []struct {
		typ byte
		req any
	}{
		{0, &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("n1"), Addr: []byte("127.0.0.1:1")},
			Term: 3, PrevLogEntry: 7, PrevLogTerm: 2, LeaderCommitIndex: 7,
			Entries: []*raft.Log{{Index: 8, Term: 3, Type: raft.LogCommand, Data: []byte{1, 2, 3}}}}},
		{0, &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ID: []byte("n1"), Addr: []byte("127.0.0.1:1")}, Term: 3}},
		{1, &raft.RequestVoteRequest{RPCHeader: raft.RPCHeader{ID: []byte("n2")}, Term: 4, LastLogIndex: 9, LastLogTerm: 3}},
		{2, &raft.InstallSnapshotRequest{RPCHeader: raft.RPCHeader{ID: []byte("n1")}, Term: 3, LastLogIndex: 5, Size: 4}},
		{3, &raft.TimeoutNowRequest{RPCHeader: raft.RPCHeader{ID: []byte("n1")}}},
		{4, &raft.RequestPreVoteRequest{RPCHeader: raft.RPCHeader{ID: []byte("n2")}, Term: 4, LastLogIndex: 9}},
	}
	var seeds [][]byte
	for _, r := range reqs {
		var buf bytes.Buffer
		buf.WriteByte(r.typ)
		if err := codec.NewEncoder(&buf, &codec.MsgpackHandle{}).Encode(r.req); err != nil {
			f.Fatal(err)
		}
		if r.typ == 2 {
			buf.WriteString("snap")
		}
		seeds = append(seeds, buf.Bytes())
	}
	return seeds
}

// pipeLayer is a raft.StreamLayer whose connections are in-memory pipes
// fed by connect.
type pipeLayer struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeLayer() *pipeLayer {
	return &pipeLayer{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// connect hands the transport a connection on which a peer sends data
// and reads whatever comes back; the channel closes when the transport
// closes its end.
func (l *pipeLayer) connect(data []byte) <-chan struct{} {
	server, client := net.Pipe()
	done := make(chan struct{})
	l.conns <- &closeSignal{Conn: server, done: done}
	go func() { _, _ = io.Copy(io.Discard, client) }()
	go func() {
		_, _ = client.Write(data)
		_ = client.Close()
	}()
	return done
}

func (l *pipeLayer) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeLayer) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeLayer) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

func (l *pipeLayer) Dial(raft.ServerAddress, time.Duration) (net.Conn, error) {
	return nil, errors.New("fuzz: no dialing")
}

// closeSignal closes done on its first Close.
type closeSignal struct {
	net.Conn
	done chan struct{}
	once sync.Once
}

func (c *closeSignal) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { close(c.done) })
	return err
}

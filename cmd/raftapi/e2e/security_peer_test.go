package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	encbinary "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Peer protocol bytes and paths (raftstore/mux.go, raftstore/rpc.go),
// spelled out here as an outsider replaying them would.
const (
	secProtoRaft  byte = 1
	secProtoRPC   byte = 2
	secApplyPath       = "/raftstore/v1/apply"
	secInjected        = "Injected_Via_Peer_Port!"
	secPeerOrg         = "raftapi:peers"
	secCloseLimit      = 10 * time.Second
	secControlKey      = "peer-port-control"
)

// TestSecurityPeerProbes replays, as a non-member, what a node sends on the
// peer port of a running cluster's leader: forwarded writes over plain TCP,
// with a certificate of another cluster's peer CA and with a certificate of
// the right peer CA naming no member; a raft AppendEntries at term 1000;
// and idle connections. Every connection is closed, nothing is stored and
// the leader keeps its term. Controls with a member's identity show that
// the same bytes are accepted from a member.
func TestSecurityPeerProbes(t *testing.T) {
	token := strings.TrimSpace(run(t, binary, "token", "generate"))
	nodes := secStartStatic(t, "p", 3, token)
	leader, before := secWaitLeader(t, nodes)
	var follower *secNode
	for _, n := range nodes {
		if n != leader {
			follower = n
		}
	}
	authority := secDerive(t, token)
	right, other := authority.PeerCA, secDerive(t, "other").PeerCA
	t.Logf("leader %s (peer %s) at term %d, commit index %d", leader.name, leader.peer, before.Term, before.CommitIndex)
	inject := secSecretCommand(secInjected)

	t.Run("apply/plain-tcp", func(t *testing.T) {
		secProbeApply(t, secDialPlain(t, leader.peer), inject)
	})
	t.Run("apply/other-peer-ca", func(t *testing.T) {
		// Even naming a member, a certificate of another cluster's peer
		// CA is no proof.
		cert := secIssue(t, other, follower.name, secPeerOrg)
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeApply(t, conn, inject)
		}
	})
	t.Run("apply/right-peer-ca-non-member", func(t *testing.T) {
		cert := secIssue(t, right, "intruder", secPeerOrg)
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeApply(t, conn, inject)
		}
	})
	t.Run("apply/admin-client-certificate", func(t *testing.T) {
		// The admin kubeconfig's certificate (cluster CA, system:masters)
		// is an API credential, not a peer's.
		cfg := leader.config(t)
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			t.Fatal(err)
		}
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeApply(t, conn, inject)
		}
	})
	t.Run("apply/right-peer-ca-without-peer-organization", func(t *testing.T) {
		cert := secIssue(t, right, follower.name)
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeApply(t, conn, inject)
		}
	})
	t.Run("apply/cluster-ca-member-name-peer-organization", func(t *testing.T) {
		// The cluster CA signs API credentials; shaped as a peer's, its
		// certificate is still no peer's.
		cert := secIssue(t, authority.CA, follower.name, secPeerOrg)
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeApply(t, conn, inject)
		}
	})
	t.Run("api/peer-certificate-is-no-client-certificate", func(t *testing.T) {
		cert := secIssue(t, right, follower.name, secPeerOrg)
		hc := secCertClient(secCAPool(t, leader.config(t)), &cert)
		secCheckRefused(t, hc, "https://"+leader.api+"/api/v1/secrets")
	})
	t.Run("raft/plain-tcp", func(t *testing.T) {
		secProbeRaft(t, leader, before, func(addr string, d time.Duration) (net.Conn, error) {
			return net.DialTimeout("tcp", addr, d)
		})
	})
	t.Run("raft/right-peer-ca-non-member", func(t *testing.T) {
		cert := secIssue(t, right, "intruder", secPeerOrg)
		secProbeRaft(t, leader, before, secTLSDialer(&cert))
	})
	t.Run("idle/plain-tcp", func(t *testing.T) {
		secProbeIdle(t, secDialPlain(t, leader.peer))
	})
	t.Run("idle/tls-no-certificate", func(t *testing.T) {
		if conn := secDialTLS(t, leader.peer, nil); conn != nil {
			secProbeIdle(t, conn)
		}
	})
	t.Run("idle/member-without-protocol-byte", func(t *testing.T) {
		cert := secIssue(t, right, follower.name, secPeerOrg)
		if conn := secDialTLS(t, leader.peer, &cert); conn != nil {
			secProbeIdle(t, conn)
		}
	})

	t.Run("nothing-stored-term-kept", func(t *testing.T) {
		secCheckNotStored(t, leader, secInjected)
		for _, n := range nodes {
			st, err := n.status(t)
			if err != nil {
				t.Fatal(err)
			}
			if st.Term != before.Term || st.LeaderID != leader.name {
				t.Errorf("%s: term %d leader %q after the probes, want term %d leader %q", n.name, st.Term, st.LeaderID, before.Term, leader.name)
			}
		}
	})

	// Controls: the same bytes from a member's identity are accepted, so
	// the refusals above are the peer port's doing, not malformed probes.
	t.Run("control/member-apply-is-stored", func(t *testing.T) {
		cert := secIssue(t, right, follower.name, secPeerOrg)
		conn := secDialTLS(t, leader.peer, &cert)
		if conn == nil {
			t.Fatal("a member's certificate was refused")
		}
		defer conn.Close()
		reply := secApplyOver(t, conn, secSecretCommand(secControlKey))
		if !strings.HasPrefix(reply, "HTTP/1.1 200") {
			t.Fatalf("member apply: %q", reply)
		}
		cs := secClientset(t, leader.config(t))
		if _, err := cs.CoreV1().Secrets("default").Get(context.Background(), secControlKey, metav1.GetOptions{}); err != nil {
			t.Fatalf("the member's forwarded write is not stored: %v", err)
		}
	})
	t.Run("control/member-append-entries-moves-term", func(t *testing.T) {
		cert := secIssue(t, right, follower.name, secPeerOrg)
		resp, err := secAppendEntries(secTLSDialer(&cert), leader, follower.name, nil)
		if err != nil {
			t.Fatalf("a member's AppendEntries failed: %v", err)
		}
		if resp.Term < 1000 {
			t.Fatalf("a member's AppendEntries at term 1000 answered term %d", resp.Term)
		}
	})
}

// secSecretCommand is the command creating a Secret named name in
// namespace default, encoded as a node forwards it to the leader (a create
// type byte, then the key and the object, each prefixed by its uvarint
// length): what an attacker who read the source would send. It is encoded
// here by hand, since the end-to-end tests stay outside the server's
// packages; the control case, a member forwarding it, shows it decodes.
func secSecretCommand(name string) []byte {
	obj, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "6f1f5e8e-0000-4000-8000-000000000001"},
		"data":     map[string]string{"k": "aW5qZWN0ZWQ="},
	})
	const cmdCreate = 1
	key := []byte("/registry/core/secrets/default/" + name)
	b := []byte{cmdCreate}
	b = encbinary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = encbinary.AppendUvarint(b, uint64(len(obj)))
	return append(b, obj...)
}

func secDialPlain(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// secDialTLS connects to addr with TLS, presenting cert (none if nil) and
// trusting any server, as an attacker would. It returns nil, having
// logged the refusal, when the handshake fails.
func secDialTLS(t *testing.T, addr string, cert *tls.Certificate) net.Conn {
	t.Helper()
	conn, err := secTLSDialer(cert)(addr, 5*time.Second)
	if err != nil {
		t.Logf("TLS handshake refused: %v", err)
		return nil
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// secTLSDialer dials with TLS, presenting cert (none if nil) whichever CAs
// the server says it accepts.
func secTLSDialer(cert *tls.Certificate) func(string, time.Duration) (net.Conn, error) {
	cfg := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", addr, cfg)
	}
}

// secProbeApply sends the RPC protocol byte and a forwarded write of
// command on conn, and checks that the connection is closed without an
// HTTP answer.
func secProbeApply(t *testing.T, conn net.Conn, command []byte) {
	t.Helper()
	_ = conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	req := secApplyRequest(command)
	if _, err := conn.Write(append([]byte{secProtoRPC}, req...)); err != nil {
		t.Logf("write refused: %v", err)
	}
	got, took, closed := secReadUntilClosed(conn, secCloseLimit)
	if bytes.Contains(got, []byte("HTTP/")) {
		t.Errorf("the peer port answered a non-member's write: %q", got)
	}
	if !closed {
		t.Errorf("the connection is still open after %v", took)
	}
	t.Logf("closed after %v (%d bytes read)", took.Round(time.Millisecond), len(got))
}

func secApplyRequest(command []byte) []byte {
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: leader\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", secApplyPath, len(command))
	return append([]byte(head), command...)
}

// secApplyOver sends a forwarded write on conn and returns the response's
// status line and body.
func secApplyOver(t *testing.T, conn net.Conn, command []byte) string {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := conn.Write(append([]byte{secProtoRPC}, secApplyRequest(command)...)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	n, err := io.ReadAtLeast(conn, buf, 12)
	if err != nil {
		t.Fatalf("read the reply: %v", err)
	}
	return string(buf[:n])
}

// secProbeIdle checks that the server closes a connection on which the
// client sends nothing, within the handshake timeout.
func secProbeIdle(t *testing.T, conn net.Conn) {
	t.Helper()
	got, took, closed := secReadUntilClosed(conn, secCloseLimit)
	if !closed {
		t.Fatalf("an idle connection is still open after %v", took)
	}
	t.Logf("idle connection closed after %v (%d bytes read)", took.Round(time.Millisecond), len(got))
}

// secProbeRaft sends a raft AppendEntries at term 1000, carrying a log
// entry that would create a secret, from a non-member dialling with dial,
// and checks that it fails and moves no term.
func secProbeRaft(t *testing.T, leader *secNode, before secStatus, dial func(string, time.Duration) (net.Conn, error)) {
	t.Helper()
	entry := &raft.Log{Index: before.CommitIndex + 1, Term: 1000, Type: raft.LogCommand, Data: secSecretCommand(secInjected)}
	resp, err := secAppendEntries(dial, leader, "intruder", []*raft.Log{entry})
	if err == nil {
		t.Errorf("a non-member's AppendEntries was answered: %+v", resp)
	} else {
		t.Logf("AppendEntries refused: %v", err)
	}
	st, err := leader.status(t)
	if err != nil {
		t.Fatal(err)
	}
	if st.Term != before.Term || st.LeaderID != leader.name || st.State != "Leader" {
		t.Errorf("after the probe %s is %s at term %d with leader %q, want Leader at term %d", leader.name, st.State, st.Term, st.LeaderID, before.Term)
	}
}

// secAppendEntries sends one AppendEntries at term 1000 to leader's peer
// port through hashicorp/raft's own NetworkTransport, as node from.
func secAppendEntries(dial func(string, time.Duration) (net.Conn, error), leader *secNode, from string, entries []*raft.Log) (*raft.AppendEntriesResponse, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	trans := raft.NewNetworkTransport(&secRaftStream{Listener: ln, dial: dial}, 1, 5*time.Second, io.Discard)
	defer trans.Close()
	var prev uint64
	if len(entries) > 0 {
		prev = entries[0].Index - 1
	}
	req := &raft.AppendEntriesRequest{
		RPCHeader:         raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(from), Addr: []byte(ln.Addr().String())},
		Term:              1000,
		PrevLogEntry:      prev,
		PrevLogTerm:       1,
		Entries:           entries,
		LeaderCommitIndex: prev + uint64(len(entries)),
	}
	var resp raft.AppendEntriesResponse
	err = trans.AppendEntries(raft.ServerID(leader.name), raft.ServerAddress(leader.peer), req, &resp)
	return &resp, err
}

// secRaftStream is a raft.StreamLayer that dials a node's peer port and
// selects the raft protocol, as a node does.
type secRaftStream struct {
	net.Listener
	dial func(string, time.Duration) (net.Conn, error)
}

func (s *secRaftStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	conn, err := s.dial(string(addr), timeout)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte{secProtoRaft}); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

var _ raft.StreamLayer = (*secRaftStream)(nil)

// secCheckNotStored lists the secrets of every namespace through the API
// and fails if one is named name.
func secCheckNotStored(t *testing.T, n *secNode, name string) {
	t.Helper()
	l, err := secClientset(t, n.config(t)).CoreV1().Secrets("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list secrets: %v", err)
	}
	for _, s := range l.Items {
		if s.Name == name {
			t.Errorf("secret %s/%s was stored through the peer port", s.Namespace, s.Name)
		}
	}
	t.Logf("%d secrets stored, none named %s", len(l.Items), name)
}

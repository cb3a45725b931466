package cluster

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/pki"
)

// peerConn dials n's peer address with TLS as the holder of leaf (no
// certificate when leaf is nil) and names protocol proto.
func peerConn(t *testing.T, n *Node, ca *pki.CA, leaf *pki.Leaf, proto byte) (net.Conn, error) {
	t.Helper()
	cfg := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test probes the server, not the other way round
	if leaf != nil {
		cert, err := leaf.TLS(ca)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", n.Store().PeerAddr(), cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte{proto}); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// readIndex asks for a read index over conn and returns the HTTP status,
// or an error when the server closed the connection.
func readIndex(conn net.Conn) (int, error) {
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	req, _ := http.NewRequest(http.MethodPost, "http://peer/raftstore/v1/readindex", strings.NewReader(""))
	if err := req.Write(conn); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// TestPeerPortAdmitsOnlyMembers probes the peer port of a running node:
// only a certificate of the cluster's peer CA naming a member gets an
// answer; everything else is closed without one.
func TestPeerPortAdmitsOnlyMembers(t *testing.T) {
	n, err := Start(Config{Name: "n1", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	pollUntil(t, "leader", func() (bool, string) { return n.Store().IsLeader(), n.Store().Status().State })
	own, err := pki.Derive(testToken)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.Derive("another cluster")
	if err != nil {
		t.Fatal(err)
	}
	issue := func(ca *pki.CA, cn string, org ...string) *pki.Leaf {
		l, err := ca.Issue(pki.LeafSpec{CommonName: cn, Organization: org, Client: true, Server: true})
		if err != nil {
			t.Fatal(err)
		}
		return &l
	}
	cases := []struct {
		name  string
		ca    *pki.CA
		leaf  *pki.Leaf
		admit bool
	}{
		{"member", own.PeerCA, issue(own.PeerCA, "n1", PeerOrganization), true},
		{"no certificate", own.PeerCA, nil, false},
		{"non-member of the peer CA", own.PeerCA, issue(own.PeerCA, "intruder", PeerOrganization), false},
		{"member name from the cluster CA", own.CA, issue(own.CA, "n1", PeerOrganization), false},
		{"member name from another cluster", other.PeerCA, issue(other.PeerCA, "n1", PeerOrganization), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := peerConn(t, n, c.ca, c.leaf, 2)
			if err == nil {
				defer conn.Close()
				var code int
				code, err = readIndex(conn)
				if err == nil && code != http.StatusOK {
					err = errors.New(http.StatusText(code))
				}
			}
			if c.admit && err != nil {
				t.Fatalf("a member was refused: %v", err)
			}
			if !c.admit && err == nil {
				t.Fatal("the peer port answered")
			}
		})
	}
	t.Run("idle connection", func(t *testing.T) {
		conn, err := net.Dial("tcp", n.Store().PeerAddr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		start := time.Now()
		_, err = conn.Read(make([]byte, 1))
		var ne net.Error
		if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
			t.Fatalf("an idle connection stayed open: %v", err)
		}
		t.Logf("closed after %v", time.Since(start))
	})
}

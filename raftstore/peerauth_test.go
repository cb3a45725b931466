package raftstore_test

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// TestPeerAdmission opens a single-node store whose peer connections name
// their node in a first line (standing in for a TLS certificate) and checks
// who gets an answer on the peer port: the member, a node gossip vouches
// for, and nobody else.
func TestPeerAdmission(t *testing.T) {
	identity := func(conn net.Conn) (string, error) {
		// Byte by byte: nothing past the line may be consumed.
		var line []byte
		for b := make([]byte, 1); ; {
			if _, err := conn.Read(b); err != nil {
				return "", err
			}
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		name := strings.TrimSpace(string(line))
		if name == "" {
			return "", errors.New("no name")
		}
		return name, nil
	}
	s, err := raftstore.Open(raftstore.Config{
		Name: "n1", DataDir: t.TempDir(), PeerListen: "127.0.0.1:0",
		PeerIdentity:         identity,
		PeerVouched:          func(name string) bool { return name == "vouched" },
		PeerHandshakeTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	faultEventually(t, 10*time.Second, "leader", func() error {
		if !s.IsLeader() {
			return errors.New("not leader")
		}
		return nil
	})
	for name, admit := range map[string]bool{"n1": true, "vouched": true, "stranger": false, "": false} {
		conn, err := net.Dial("tcp", s.PeerAddr())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		// The identity reader consumes exactly one line, so the protocol
		// byte and the request follow it on the same connection.
		_, _ = conn.Write([]byte(name + "\n\x02"))
		req, _ := http.NewRequest(http.MethodPost, "http://peer/raftstore/v1/readindex", nil)
		_ = req.Write(conn)
		resp, err := http.ReadResponse(bufio.NewReader(conn), req)
		answered := err == nil && resp.StatusCode == http.StatusOK
		if answered != admit {
			t.Errorf("node %q: answered %v (%v), want %v", name, answered, err, admit)
		}
		conn.Close()
	}
}

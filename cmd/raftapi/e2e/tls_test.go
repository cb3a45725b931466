package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// peerCA is a certificate authority of the operator's, outside the
// cluster's token, that issues the nodes' peer certificates
// (--peer-cert, --peer-key, --peer-ca).
type peerCA struct {
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // the CA certificate, PEM
}

// newPeerCA makes a CA and writes its certificate as a PEM file in a new
// directory.
func newPeerCA(t *testing.T) *peerCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "raftapi test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &peerCA{dir: t.TempDir(), cert: cert, key: key}
	ca.file = filepath.Join(ca.dir, "ca.crt")
	writePEM(t, ca.file, "CERTIFICATE", der)
	return ca
}

// serveFlags issues the peer certificate of node name (its common name,
// as a node must present) for 127.0.0.1 and returns the serve flags that
// use it.
func (ca *peerCA) serveFlags(t *testing.T, name string) []string {
	t.Helper()
	nodeKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &nodeKey.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(nodeKey)
	cert, key := filepath.Join(ca.dir, name+".crt"), filepath.Join(ca.dir, name+".key")
	writePEM(t, cert, "CERTIFICATE", der)
	writePEM(t, key, "EC PRIVATE KEY", keyDER)
	return []string{"--peer-cert", cert, "--peer-key", key, "--peer-ca", ca.file}
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPeerTLS runs a static three-node cluster whose peer traffic (raft,
// forwarded writes, read index) is mutual TLS with certificates of the
// operator's CA, each naming its node: a write through a follower commits
// and is read back everywhere. A node whose certificate another CA signed
// cannot take part.
func TestPeerTLS(t *testing.T) {
	ca := newPeerCA(t)
	c := &procCluster{t: t, token: newToken()}
	var initial []string
	for i := range 3 {
		nd := &node{name: "n" + string(rune('1'+i)), dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
		c.nodes = append(c.nodes, nd)
		initial = append(initial, nd.name+"="+nd.peer)
	}
	for i, nd := range c.nodes {
		c.startNodeArgs(i, strings.Join(initial, ","), ca.serveFlags(t, nd.name)...)
	}
	t.Cleanup(c.stopAll)
	leader := c.waitLeader(-1)
	follower := (leader + 1) % 3
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, oc, err := write(ctx, http.MethodPost, cmURL(c.nodes[follower].api, ""), newConfigMap("over-tls", "x"))
	if oc != acked {
		t.Fatalf("write through follower over TLS: %v", err)
	}
	for i := range c.nodes {
		got, _, err := get(ctx, c.nodes[i].api, "over-tls", "")
		if err != nil || got.Metadata.ResourceVersion != created.Metadata.ResourceVersion {
			t.Fatalf("node %d: %v %+v", i, err, got)
		}
	}

	// A stranger with another CA's certificate cannot join: it never learns
	// a leader. It has n1's name, peer address and the cluster's token:
	// only its peer certificate is wrong.
	other := newPeerCA(t)
	stranger := &node{name: "n1", dir: t.TempDir(), api: freeAddr(t), peer: c.nodes[0].peer}
	c.kill(0)
	c.nodes[0] = stranger
	c.startNodeArgs(0, strings.Join(initial, ","), other.serveFlags(t, stranger.name)...)
	c.waitLeader(0)
	// The five seconds of watching start once the stranger is up (it
	// derives the cluster's keys from the token first).
	waitFor(t, 30*time.Second, "the stranger answering", func() bool { _, err := c.status(0); return err == nil })
	answered := 0
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := c.status(0)
		if err == nil {
			answered++
		}
		if err == nil && st.LeaderID != "" {
			t.Fatalf("node with a foreign certificate learned leader %s", st.LeaderID)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if answered == 0 {
		t.Fatal("the node with a foreign certificate never answered: the check above proved nothing")
	}
}

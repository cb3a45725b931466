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

// writeCA makes a CA and one certificate it signs for 127.0.0.1, written
// as PEM files in dir; it returns the cert, key and CA paths.
func writeCA(t *testing.T, dir string) (cert, key, ca string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "raftapi test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	nodeKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	nodeTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "raftapi peer"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
	nodeDER, err := x509.CreateCertificate(rand.Reader, nodeTmpl, caCert, &nodeKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(nodeKey)
	cert, key, ca = filepath.Join(dir, "peer.crt"), filepath.Join(dir, "peer.key"), filepath.Join(dir, "ca.crt")
	writePEM(t, cert, "CERTIFICATE", nodeDER)
	writePEM(t, key, "EC PRIVATE KEY", keyDER)
	writePEM(t, ca, "CERTIFICATE", caDER)
	return cert, key, ca
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPeerTLS runs a static three-node cluster whose peer traffic (raft,
// forwarded writes, read index) is mutual TLS: a write through a follower
// commits and is read back everywhere. A node whose certificate another CA
// signed cannot take part.
func TestPeerTLS(t *testing.T) {
	cert, key, ca := writeCA(t, t.TempDir())
	c := &procCluster{t: t}
	var initial []string
	for i := range 3 {
		nd := &node{name: "n" + string(rune('1'+i)), dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
		c.nodes = append(c.nodes, nd)
		initial = append(initial, nd.name+"="+nd.peer)
	}
	tlsArgs := []string{"--peer-cert", cert, "--peer-key", key, "--peer-ca", ca}
	for i := range c.nodes {
		c.startNodeArgs(i, strings.Join(initial, ","), tlsArgs...)
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
	// a leader.
	otherCert, otherKey, otherCA := writeCA(t, t.TempDir())
	stranger := &node{name: "n1", dir: t.TempDir(), api: freeAddr(t), peer: c.nodes[0].peer}
	c.kill(0)
	c.nodes[0] = stranger
	c.startNodeArgs(0, strings.Join(initial, ","), "--peer-cert", otherCert, "--peer-key", otherKey, "--peer-ca", otherCA)
	c.waitLeader(0)
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

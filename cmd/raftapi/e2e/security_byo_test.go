package e2e

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSecurityBringYourOwnPKI starts a node with kube-apiserver's
// --tls-cert-file, --tls-private-key-file and --client-ca-file from a CA
// the test made: kubectl with a kubeconfig built from those files works,
// and a client certificate of the cluster's own CA (derived from its
// token) is still accepted, as documented: the cluster CA is always a
// client CA.
func TestSecurityBringYourOwnPKI(t *testing.T) {
	dir := t.TempDir()
	ca := secNewTestCA(t, "byo test CA")
	serverCert, serverKey := ca.issue(t, dir, "server", x509.Certificate{
		Subject:     pkix.Name{CommonName: "raftapi byo"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	aliceCert, aliceKey := ca.issue(t, dir, "alice", x509.Certificate{
		Subject:     pkix.Name{CommonName: "alice", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	caFile := filepath.Join(dir, "ca.crt")
	secWritePEM(t, caFile, "CERTIFICATE", ca.cert.Raw)

	n := secNewNode(t, "byo", false)
	n.start(t, "--tls-cert-file", serverCert, "--tls-private-key-file", serverKey, "--client-ca-file", caFile)
	base := "https://" + n.api
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	anon := secCertClient(roots, nil)
	secEventually(t, secFormTimeout, "byo node ready", func() error {
		if !n.running() {
			return secFatal{secWrapOut(os.ErrProcessDone, n.log(0))}
		}
		r, err := secDo(anon, http.MethodGet, base+"/readyz")
		if err == nil && r.code != http.StatusOK {
			return secWrapOut(os.ErrNotExist, string(r.body))
		}
		return err
	})

	t.Run("kubectl as alice", func(t *testing.T) {
		kc := filepath.Join(dir, "alice.kubeconfig")
		secWriteKubeconfig(t, kc, base, caFile, aliceCert, aliceKey)
		secMustKubectl(t, kc, "get", "namespaces")
		secMustKubectl(t, kc, "create", "configmap", "byo", "--from-literal=k=v")
	})
	t.Run("cluster CA client certificate", func(t *testing.T) {
		authority := secAuthority(t, n.data)
		leaf := secIssue(t, authority.CA, "carol", "system:masters")
		hc := secCertClient(roots, &leaf)
		for _, path := range []string{"/api/v1/namespaces/default/configmaps/byo", "/raftapi/v1/status"} {
			if r := secMustDo(t, hc, http.MethodGet, base+path); r.code != http.StatusOK {
				t.Errorf("%s: HTTP %d: %s", path, r.code, r.body)
			}
		}
	})
	t.Run("unknown CA client certificate", func(t *testing.T) {
		other := secNewTestCA(t, "not trusted")
		c, k := other.issue(t, dir, "mallory", x509.Certificate{
			Subject:     pkix.Name{CommonName: "alice", Organization: []string{"system:masters"}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		})
		cert, err := tls.LoadX509KeyPair(c, k)
		if err != nil {
			t.Fatal(err)
		}
		secCheckRefused(t, secCertClient(roots, &cert), base+"/api/v1/namespaces")
	})
}

// secTestCA is a CA the test makes with crypto/x509.
type secTestCA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func secNewTestCA(t *testing.T, cn string) *secTestCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &secTestCA{cert: cert, key: key}
}

// issue signs a certificate shaped like tmpl (subject, names, usages) and
// writes it and its key as name.crt and name.key in dir.
func (ca *secTestCA) issue(t *testing.T, dir, name string, tmpl x509.Certificate) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	secWritePEM(t, certFile, "CERTIFICATE", der)
	secWritePEM(t, keyFile, "PRIVATE KEY", keyDER)
	return certFile, keyFile
}

func secWritePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

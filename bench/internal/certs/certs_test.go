package certs

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"testing"
)

// TestIssue checks that an issued pair loads as a TLS key pair whose
// certificate the CA's file verifies for both uses, with the subject's
// groups kept (a Kubernetes client certificate's O is its groups).
func TestIssue(t *testing.T) {
	dir := t.TempDir()
	ca, err := NewCA(dir, "ca", "test CA")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(dir, "admin", pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(p.Cert, p.Key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(ca.Path)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("the CA file holds no certificate")
	}
	leaf := pair.Leaf
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Errorf("verify for %v: %v", usage, err)
		}
	}
	if got := leaf.Subject.Organization; len(got) != 1 || got[0] != "system:masters" {
		t.Errorf("organization = %q, want [system:masters]", got)
	}
}

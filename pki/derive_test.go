package pki

import (
	"bytes"
	"crypto/x509"
	"strings"
	"testing"
	"time"
)

func TestDeriveIsDeterministic(t *testing.T) {
	start := time.Now()
	a, err := Derive("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("derive took %v", time.Since(start))
	b, err := Derive("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.CA.CertPEM, b.CA.CertPEM) || !bytes.Equal(a.PeerCA.CertPEM, b.PeerCA.CertPEM) {
		t.Fatal("the same secret derived different CA certificates")
	}
	if !a.ServiceAccountKey.Equal(b.ServiceAccountKey) {
		t.Fatal("the same secret derived different service-account keys")
	}
	if a.CAHash() != b.CAHash() {
		t.Fatal("CA hashes differ")
	}
	c, err := Derive("other")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.CA.CertPEM, c.CA.CertPEM) || a.CAHash() == c.CAHash() || bytes.Equal(a.CA.CertPEM, a.PeerCA.CertPEM) {
		t.Fatal("different secrets or roles derived the same CA")
	}
}

func TestIssuedLeafVerifies(t *testing.T) {
	a, err := Derive("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := a.CA.Issue(LeafSpec{CommonName: "n1", DNSNames: []string{"localhost"}, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := leaf.TLS(a.CA)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: a.CA.Pool(), DNSName: "localhost"}); err != nil {
		t.Fatalf("a leaf does not verify against its CA: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: a.PeerCA.Pool(), DNSName: "localhost"}); err == nil {
		t.Fatal("a leaf of the cluster CA verifies against the peer CA")
	}
}

func TestToken(t *testing.T) {
	a, err := Derive("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	full := a.Token("s3cret").String()
	if !strings.HasPrefix(full, "K10"+a.CAHash()+"::server:") {
		t.Fatalf("full token %q", full)
	}
	tok, err := ParseToken(full)
	if err != nil || tok.Secret != "s3cret" || tok.CAHash != a.CAHash() {
		t.Fatalf("ParseToken(%q) = %+v, %v", full, tok, err)
	}
	if err := a.Check(tok); err != nil {
		t.Fatal(err)
	}
	other, _ := Derive("other")
	if err := other.Check(tok); err == nil {
		t.Fatal("a token checked against another cluster's CAs")
	}
	bare, err := ParseToken("just-a-secret")
	if err != nil || bare.Secret != "just-a-secret" || bare.CAHash != "" {
		t.Fatalf("bare token = %+v, %v", bare, err)
	}
	for _, bad := range []string{"", "K10abc::server:x", "K10" + a.CAHash() + "::node:x", "K10" + a.CAHash() + "::server:"} {
		if _, err := ParseToken(bad); err == nil {
			t.Errorf("ParseToken(%q) succeeded", bad)
		}
	}
}

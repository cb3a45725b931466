package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePEM(t *testing.T, blocks ...*pem.Block) string {
	t.Helper()
	var b []byte
	for _, bl := range blocks {
		b = append(b, pem.EncodeToMemory(bl)...)
	}
	p := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSigningKeyFile(t *testing.T) {
	ec := newECKey(t)
	der, _ := x509.MarshalECPrivateKey(ec)
	k, err := LoadSigningKeyFile(writePEM(t, &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}))
	if err != nil || !k.(*ecdsa.PrivateKey).Equal(ec) {
		t.Fatalf("EC key: %v, %v", k, err)
	}
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ = x509.MarshalPKCS8PrivateKey(rsaKey)
	k, err = LoadSigningKeyFile(writePEM(t, &pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil || !k.(*rsa.PrivateKey).Equal(rsaKey) {
		t.Fatalf("RSA PKCS #8 key: %v", err)
	}
	pub, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	if _, err := LoadSigningKeyFile(writePEM(t, &pem.Block{Type: "PUBLIC KEY", Bytes: pub})); err == nil || !strings.HasPrefix(err.Error(), "failed to parse service-account-issuer-key-file") {
		t.Fatalf("a public key as signing key: %v, want kube's parse error", err)
	}
}

// TestLoadKeyFiles: public and private keys alike verify, several per
// file and across files.
func TestLoadKeyFiles(t *testing.T) {
	ec := newECKey(t)
	ecDER, _ := x509.MarshalECPrivateKey(ec)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPub, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	one := writePEM(t, &pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}, &pem.Block{Type: "PUBLIC KEY", Bytes: rsaPub})
	two := writePEM(t, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})
	keys, err := LoadKeyFiles([]string{one, two})
	if err != nil || len(keys) != 3 {
		t.Fatalf("LoadKeyFiles = %d keys, %v; want 3", len(keys), err)
	}
	if !keys[0].(*ecdsa.PublicKey).Equal(&ec.PublicKey) || !keys[1].(*rsa.PublicKey).Equal(&rsaKey.PublicKey) {
		t.Errorf("keys = %T %T, want the public halves", keys[0], keys[1])
	}
	empty := writePEM(t, &pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte("x")})
	if _, err := LoadKeyFiles([]string{empty}); err == nil || !strings.Contains(err.Error(), `failed to parse key file "`+empty+`"`) {
		t.Fatalf("a file without keys: %v", err)
	}
}

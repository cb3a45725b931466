// Package certs makes the throwaway PKI of a benchmark run: a CA, the
// certificates it signs for loopback servers and their clients, and
// bare keys, written as PEM files into the run's directory.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// validity is how long the run's certificates are valid: longer than any
// run, short enough to be worthless afterwards.
const validity = 7 * 24 * time.Hour

// CA is a run's certificate authority.
type CA struct {
	// Path is the PEM file of the CA's certificate.
	Path string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// Pair is the PEM files of a certificate and its key.
type Pair struct {
	Cert, Key string
}

// NewCA makes a self-signed CA named cn and writes its certificate to
// dir/name.pem.
func NewCA(dir, name, cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: CA key: %w", err)
	}
	tmpl := template(pkix.Name{CommonName: cn})
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("certs: CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certs: CA: %w", err)
	}
	ca := &CA{Path: filepath.Join(dir, name+".pem"), cert: cert, key: key}
	return ca, writePEM(ca.Path, "CERTIFICATE", der)
}

// Issue signs a certificate for subject, valid for serving on loopback
// (127.0.0.1, localhost) and as a client certificate, and writes it and
// its key to dir/name.pem and dir/name-key.pem.
func (ca *CA) Issue(dir, name string, subject pkix.Name) (Pair, error) {
	p := Pair{Cert: filepath.Join(dir, name+".pem"), Key: filepath.Join(dir, name+"-key.pem")}
	key, err := NewKey(p.Key)
	if err != nil {
		return p, err
	}
	tmpl := template(subject)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	tmpl.DNSNames = []string{"localhost"}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return p, fmt.Errorf("certs: certificate %s: %w", name, err)
	}
	return p, writePEM(p.Cert, "CERTIFICATE", der)
}

// NewKey makes a P-256 key and writes it to path.
func NewKey(path string) (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: key: %w", err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("certs: key: %w", err)
	}
	return key, writePEM(path, "EC PRIVATE KEY", der)
}

func template(subject pkix.Name) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62)) // crypto/rand does not fail on Linux
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(validity),
	}
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}

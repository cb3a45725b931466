package pki

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"
)

// Derivation parameters. They define every cluster's keys: changing any of
// them changes the CAs every existing token derives, so never do.
const (
	deriveSalt = "raftapi cluster pki v1"
	// deriveIterations makes each guess at a weak user-chosen secret cost
	// a brute-force attacker, who sees the CA certificates, a fraction of a
	// second; a generated secret (NewSecret) has 256 bits anyway.
	deriveIterations = 1_000_000
)

// caValidity is fixed so that every node derives the same certificate. The
// CAs live as long as the token: rotating them means a new token.
var (
	caNotBefore = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	caNotAfter  = time.Date(2125, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Authority is what a cluster's secret derives: its two CAs and the
// service-account signing key.
type Authority struct {
	// CA signs API serving certificates and the client certificates the
	// API accepts.
	CA *CA
	// PeerCA signs the certificates of nodes on the peer address.
	PeerCA *CA
	// ServiceAccountKey signs service-account tokens.
	ServiceAccountKey *ecdsa.PrivateKey
	// GossipKey encrypts and authenticates gossip (AES-256-GCM).
	GossipKey []byte
}

// Derive derives a cluster's authority from its secret. It is
// deterministic and takes a fraction of a second.
func Derive(secret string) (*Authority, error) {
	seed, err := pbkdf2.Key(sha256.New, secret, []byte(deriveSalt), deriveIterations, 32)
	if err != nil {
		return nil, fmt.Errorf("pki: derive: %w", err)
	}
	ca, err := deriveCA(seed, "raftapi-ca")
	if err != nil {
		return nil, err
	}
	peerCA, err := deriveCA(seed, "raftapi-peer-ca")
	if err != nil {
		return nil, err
	}
	sa, err := deriveECDSA(seed, "raftapi-service-account")
	if err != nil {
		return nil, err
	}
	return &Authority{CA: ca, PeerCA: peerCA, ServiceAccountKey: sa, GossipKey: expand(seed, "raftapi-gossip key", 32)}, nil
}

// CAHash is the hex SHA-256 of the CA bundle (the cluster CA's PEM followed
// by the peer CA's), the hash a full token carries.
func (a *Authority) CAHash() string {
	h := sha256.New()
	h.Write(a.CA.CertPEM)
	h.Write(a.PeerCA.CertPEM)
	return hex.EncodeToString(h.Sum(nil))
}

// Token returns the full token of a cluster whose secret is secret.
func (a *Authority) Token(secret string) Token { return Token{CAHash: a.CAHash(), Secret: secret} }

// Check verifies a token's CA hash, when it has one, against a.
func (a *Authority) Check(t Token) error {
	if t.CAHash != "" && t.CAHash != a.CAHash() {
		return fmt.Errorf("pki: the token's CA hash %.12s… does not match the CAs its secret derives (%.12s…): the token is mistyped or belongs to another cluster", t.CAHash, a.CAHash())
	}
	return nil
}

func expand(seed []byte, label string, n int) []byte {
	b, err := hkdf.Expand(sha256.New, seed, label, n)
	if err != nil {
		panic(err) // only for n beyond 255 hash lengths
	}
	return b
}

// deriveCA derives a self-signed Ed25519 CA named role@<id>, where id is
// derived too: CAs of different clusters have different names, so a
// client holding another cluster's certificate does not offer it and
// error messages tell the clusters apart.
func deriveCA(seed []byte, role string) (*CA, error) {
	key := ed25519.NewKeyFromSeed(expand(seed, role+" key", ed25519.SeedSize))
	serial := new(big.Int).SetBytes(expand(seed, role+" serial", 16))
	cn := role + "@" + hex.EncodeToString(expand(seed, role+" name", 5))
	tmpl := &x509.Certificate{
		SerialNumber:          serial.Add(serial, big.NewInt(1)),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             caNotBefore,
		NotAfter:              caNotAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("pki: derive %s: %w", cn, err)
	}
	return newCA(der, key)
}

// deriveECDSA derives a P-256 key; a candidate scalar out of range (odds
// about 2^-32) is replaced by the next one.
func deriveECDSA(seed []byte, label string) (*ecdsa.PrivateKey, error) {
	for i := 0; i < 16; i++ {
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), expand(seed, fmt.Sprintf("%s %d", label, i), 32))
		if err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("pki: derive %s: no valid scalar", label)
}

package pki

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// tokenPrefix starts a full token, as k3s's "K10" does: a full token is
// K10<ca-hash>::server:<secret>, where ca-hash is the hex SHA-256 of the
// cluster's CA bundle (see Authority.CAHash).
const (
	tokenPrefix = "K10"
	tokenUser   = "server"
)

// Token is a cluster's join token. Secret defines the cluster (its CAs
// and keys are derived from it); CAHash, when set, lets a node check that
// the secret derives the cluster it meant to join, which catches a token
// mistyped or taken from another cluster.
type Token struct {
	CAHash string
	Secret string
}

// ParseToken parses a full token (K10<hash>::server:<secret>) or a bare
// secret.
func ParseToken(s string) (Token, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Token{}, errors.New("pki: the token is empty")
	}
	if !strings.HasPrefix(s, tokenPrefix) || !strings.Contains(s, "::") {
		return Token{Secret: s}, nil
	}
	hash, cred, _ := strings.Cut(strings.TrimPrefix(s, tokenPrefix), "::")
	user, secret, ok := strings.Cut(cred, ":")
	if !ok || user != tokenUser || secret == "" {
		return Token{}, fmt.Errorf("pki: malformed token: want K10<ca-hash>::%s:<secret>", tokenUser)
	}
	if b, err := hex.DecodeString(hash); err != nil || len(b) != sha256.Size {
		return Token{}, errors.New("pki: malformed token: the CA hash is not a hex SHA-256")
	}
	return Token{CAHash: strings.ToLower(hash), Secret: secret}, nil
}

// String returns the full token when the CA hash is known, else the bare
// secret.
func (t Token) String() string {
	if t.CAHash == "" {
		return t.Secret
	}
	return tokenPrefix + t.CAHash + "::" + tokenUser + ":" + t.Secret
}

// NewSecret returns a random secret of 32 bytes, hex encoded.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// SameSecret reports whether two tokens hold the same secret, in constant
// time.
func (t Token) SameSecret(o Token) bool {
	return subtle.ConstantTimeCompare([]byte(t.Secret), []byte(o.Secret)) == 1
}

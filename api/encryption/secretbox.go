package encryption

import (
	"crypto/rand"
	"errors"
	"fmt"

	"golang.org/x/crypto/nacl/secretbox"
)

// secretboxPrefix starts the values of the secretbox provider:
// "k8s:enc:secretbox:v1:<key name>:" then a random 24-byte nonce and the
// NaCl secretbox (XSalsa20-Poly1305) of the value — kube-apiserver's
// format.
const secretboxPrefix = "k8s:enc:secretbox:v1:"

const secretboxNonceSize = 24

// errSecretboxOpen is kube-apiserver's (misleading) message for a value
// that does not open: a wrong key or corrupt data.
var errSecretboxOpen = errors.New("output array was not large enough for encryption")

// secretboxKey is one secretbox key.
type secretboxKey struct{ key [32]byte }

var _ transformer = secretboxKey{}

// newSecretbox returns the secretbox transformer of key (32 bytes).
func newSecretbox(key []byte) (transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
	}
	var t secretboxKey
	copy(t.key[:], key)
	return t, nil
}

func (t secretboxKey) read(stored, _ []byte) ([]byte, bool, error) {
	if len(stored) < secretbox.Overhead+secretboxNonceSize {
		return nil, false, errShortData
	}
	var nonce [secretboxNonceSize]byte
	copy(nonce[:], stored)
	value, ok := secretbox.Open(nil, stored[secretboxNonceSize:], &nonce, &t.key)
	if !ok {
		return nil, false, errSecretboxOpen
	}
	return value, false, nil
}

func (t secretboxKey) write(value, _ []byte) ([]byte, error) {
	var nonce [secretboxNonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return secretbox.Seal(nonce[:], value, &nonce, &t.key), nil
}

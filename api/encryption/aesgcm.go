package encryption

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
)

// aesGCMPrefix starts the values of the aesgcm provider:
// "k8s:enc:aesgcm:v1:<key name>:" then a random 12-byte nonce and the
// AES-GCM sealed value, whose additional authenticated data is the
// storage key — kube-apiserver's format, which binds a value to its key:
// a value copied to another key does not decrypt.
const aesGCMPrefix = "k8s:enc:aesgcm:v1:"

// aesGCM is one aesgcm key.
type aesGCM struct{ aead cipher.AEAD }

var _ transformer = aesGCM{}

// newAESGCM returns the aesgcm transformer of key (16, 24 or 32 bytes).
func newAESGCM(key []byte) (transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return aesGCM{aead: aead}, nil
}

func (t aesGCM) read(stored, authData []byte) ([]byte, bool, error) {
	n := t.aead.NonceSize()
	if len(stored) < n {
		return nil, false, errShortData
	}
	value, err := t.aead.Open(nil, stored[:n], stored[n:], authData)
	return value, false, err
}

func (t aesGCM) write(value, authData []byte) ([]byte, error) {
	n := t.aead.NonceSize()
	out := make([]byte, n, n+len(value)+t.aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("failed to write nonce for AES-GCM: %w", err)
	}
	return t.aead.Seal(out, out[:n], value, authData), nil
}

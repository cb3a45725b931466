package encryption

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// aesCBCPrefix starts the values of the aescbc provider:
// "k8s:enc:aescbc:v1:<key name>:" then a random 16-byte IV and the value,
// PKCS#7-padded, encrypted with AES-CBC — kube-apiserver's format, which
// authenticates nothing (kube deprecates it for aesgcm or secretbox).
const aesCBCPrefix = "k8s:enc:aescbc:v1:"

// Errors of an aescbc value, with kube-apiserver's messages.
var (
	errBlockSize    = errors.New("the stored data is not a multiple of the block size")
	errPKCS7Data    = errors.New("invalid PKCS7 data (empty or not padded)")
	errPKCS7Padding = errors.New("invalid padding on input")
)

// aesCBC is one aescbc key.
type aesCBC struct{ block cipher.Block }

var _ transformer = aesCBC{}

// newAESCBC returns the aescbc transformer of key (16, 24 or 32 bytes).
func newAESCBC(key []byte) (transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return aesCBC{block: block}, nil
}

func (t aesCBC) read(stored, _ []byte) ([]byte, bool, error) {
	const bs = aes.BlockSize
	if len(stored) < bs {
		return nil, false, errShortData
	}
	iv, data := stored[:bs], stored[bs:]
	if len(data)%bs != 0 {
		return nil, false, errBlockSize
	}
	out := bytes.Clone(data)
	cipher.NewCBCDecrypter(t.block, iv).CryptBlocks(out, out)
	if len(out) == 0 {
		return nil, false, errPKCS7Data
	}
	pad := int(out[len(out)-1])
	if pad == 0 || pad > len(out) {
		return nil, false, errPKCS7Data
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, false, errPKCS7Padding
		}
	}
	return out[:len(out)-pad], false, nil
}

func (t aesCBC) write(value, _ []byte) ([]byte, error) {
	const bs = aes.BlockSize
	pad := bs - len(value)%bs
	out := make([]byte, bs+len(value)+pad)
	if _, err := rand.Read(out[:bs]); err != nil {
		return nil, errors.New("unable to read sufficient random bytes")
	}
	copy(out[bs:], value)
	copy(out[bs+len(value):], bytes.Repeat([]byte{byte(pad)}, pad))
	cipher.NewCBCEncrypter(t.block, out[:bs]).CryptBlocks(out[bs:], out[bs:])
	return out, nil
}

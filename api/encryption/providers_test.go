package encryption

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/secretbox"
)

const (
	plain   = `{"kind":"Secret","data":{"k":"c2VjcmV0"}}`
	keyPath = "/registry/core/secrets/ns/s"
)

// TestProvidersRoundTrip writes with each provider and key size and reads
// back: the value starts with the provider's prefix and key name, has
// the layout kube-apiserver gives it, and a current read is not stale.
func TestProvidersRoundTrip(t *testing.T) {
	tests := []struct {
		name, kind, secret, prefix string
		// open decrypts the part after the prefix with the raw key, as
		// kube-apiserver's transformer would.
		open func(t *testing.T, key, data []byte) []byte
	}{
		{"aesgcm-16", "aesgcm", key16, "k8s:enc:aesgcm:v1:k1:", openGCM},
		{"aesgcm-24", "aesgcm", key24, "k8s:enc:aesgcm:v1:k1:", openGCM},
		{"aesgcm-32", "aesgcm", key32, "k8s:enc:aesgcm:v1:k1:", openGCM},
		{"aescbc-16", "aescbc", key16, "k8s:enc:aescbc:v1:k1:", openCBC},
		{"aescbc-32", "aescbc", key32, "k8s:enc:aescbc:v1:k1:", openCBC},
		{"secretbox", "secretbox", key32, "k8s:enc:secretbox:v1:k1:", openSecretbox},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := secretsWith(t, provider(tt.kind, "k1", tt.secret))
			stored, err := tr.write([]byte(plain), []byte(keyPath))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(stored), tt.prefix) {
				t.Fatalf("stored %q, want prefix %q", stored[:min(len(stored), 40)], tt.prefix)
			}
			if bytes.Contains(stored, []byte("c2VjcmV0")) {
				t.Fatal("stored value contains the plaintext")
			}
			key, _ := base64.StdEncoding.DecodeString(tt.secret)
			if got := tt.open(t, key, stored[len(tt.prefix):]); string(got) != plain {
				t.Fatalf("decrypted by hand: %q, want %q", got, plain)
			}
			got, stale, err := tr.read(stored, []byte(keyPath))
			if err != nil || stale || string(got) != plain {
				t.Fatalf("read = %q, stale %v, %v; want %q, not stale", got, stale, err, plain)
			}
			again, _ := tr.write([]byte(plain), []byte(keyPath))
			if bytes.Equal(again, stored) {
				t.Fatal("two writes of one value are equal: the nonce or IV is not random")
			}
		})
	}
}

// openGCM opens nonce(12) + AES-GCM sealed data bound to keyPath.
func openGCM(t *testing.T, key, data []byte) []byte {
	t.Helper()
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	out, err := aead.Open(nil, data[:12], data[12:], []byte(keyPath))
	if err != nil {
		t.Fatalf("AES-GCM open: %v", err)
	}
	return out
}

// openCBC decrypts IV(16) + AES-CBC data and strips the PKCS#7 padding.
func openCBC(t *testing.T, key, data []byte) []byte {
	t.Helper()
	block, _ := aes.NewCipher(key)
	out := bytes.Clone(data[16:])
	cipher.NewCBCDecrypter(block, data[:16]).CryptBlocks(out, out)
	pad := int(out[len(out)-1])
	if pad < 1 || pad > 16 {
		t.Fatalf("padding %d", pad)
	}
	return out[:len(out)-pad]
}

// openSecretbox opens nonce(24) + secretbox data.
func openSecretbox(t *testing.T, key, data []byte) []byte {
	t.Helper()
	var k [32]byte
	var nonce [24]byte
	copy(k[:], key)
	copy(nonce[:], data)
	out, ok := secretbox.Open(nil, data[24:], &nonce, &k)
	if !ok {
		t.Fatal("secretbox open failed")
	}
	return out
}

// TestKubeValues reads values that kube-apiserver v1.37's own
// transformers wrote (k8s.io/apiserver encryptionconfig, secrets, with
// the storage key keyPath as aesgcm's authenticated data).
func TestKubeValues(t *testing.T) {
	tests := []struct{ name, provider, value string }{
		{"aesgcm", provider("aesgcm", "key1", key16), "azhzOmVuYzphZXNnY206djE6a2V5MTpHHDC9ggiw33TFsYYxglqJ0L8EKVlO3ke1cCkv9+OJDvhAX1pUQS1Lj2qc2akXcCosEHq+XWaOUChPpjANsFbZqbV23pg="},
		{"aescbc", provider("aescbc", "key2", key32), "azhzOmVuYzphZXNjYmM6djE6a2V5Mjr4EavABcZqiBxnu0RNr34924BU7sxKs1XJXU/FJOisuWjCfdI29rE/m8OZ31X1Va19FwTxEXtCOitIoDuLRpOK"},
		{"secretbox", provider("secretbox", "key3", key32), "azhzOmVuYzpzZWNyZXRib3g6djE6a2V5MzrAO9+XF7x7MOA4n+fST+mseLFjxBuS6wdFueUMWwNbmxT476zi6c8MoBlIFmFBLL+eDw9Iy5Zy231ZwZZkZdYJJLPPfKIvrbr9lA2C/t1hU60="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value, _ := base64.StdEncoding.DecodeString(tt.value)
			got, stale, err := secretsWith(t, tt.provider).read(value, []byte(keyPath))
			if err != nil || stale || string(got) != plain {
				t.Fatalf("read = %q, stale %v, %v; want %q", got, stale, err, plain)
			}
		})
	}
}

// TestWrongKeyFails reads values with a key of the same name but other
// bytes, and with no key of that name.
func TestWrongKeyFails(t *testing.T) {
	tests := []struct {
		kind, want string
	}{
		{"aesgcm", "cipher: message authentication failed"},
		{"aescbc", "invalid"}, // a wrong key leaves garbage padding (or, rarely, garbage)
		{"secretbox", "output array was not large enough for encryption"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			stored, err := secretsWith(t, provider(tt.kind, "k1", key32)).write([]byte(plain), []byte(keyPath))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := secretsWith(t, provider(tt.kind, "k1", other)).read(stored, []byte(keyPath))
			if tt.kind == "aescbc" && err == nil {
				// CBC has no authentication: a wrong key that happens to
				// leave valid padding yields garbage, never the plaintext.
				if string(got) == plain {
					t.Fatal("wrong aescbc key decrypted the value")
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("wrong key: %q, %v; want an error with %q", got, err, tt.want)
			}
			_, _, err = secretsWith(t, provider(tt.kind, "k2", key32)).read(stored, []byte(keyPath))
			if err == nil || !strings.Contains(err.Error(), "no matching key was found") {
				t.Fatalf("missing key: %v, want no matching key", err)
			}
			_, _, err = secretsWith(t, provider("identity")).read(stored, []byte(keyPath))
			if err == nil || err.Error() != "no matching prefix found" {
				t.Fatalf("identity only: %v, want no matching prefix found", err)
			}
		})
	}
}

// TestAESGCMBoundToKey reads an aesgcm value as if it were stored at
// another key: the authenticated data differs, so it fails.
func TestAESGCMBoundToKey(t *testing.T) {
	tr := secretsWith(t, provider("aesgcm", "k1", key32))
	stored, err := tr.write([]byte(plain), []byte(keyPath))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.read(stored, []byte("/registry/core/secrets/ns/other")); err == nil {
		t.Fatal("aesgcm value read at another key")
	}
	if _, _, err := tr.read(stored, []byte(keyPath)); err != nil {
		t.Fatalf("read at its own key: %v", err)
	}
}

// TestCorruptValues reads truncated and altered values.
func TestCorruptValues(t *testing.T) {
	for _, kind := range []string{"aesgcm", "aescbc", "secretbox"} {
		t.Run(kind, func(t *testing.T) {
			tr := secretsWith(t, provider(kind, "k1", key32))
			stored, err := tr.write([]byte(plain), []byte(keyPath))
			if err != nil {
				t.Fatal(err)
			}
			prefix := len("k8s:enc:" + kind + ":v1:k1:")
			for name, v := range map[string][]byte{
				"prefix only": stored[:prefix],
				"truncated":   stored[:prefix+5],
				"odd length":  stored[:len(stored)-1],
			} {
				if got, _, err := tr.read(v, []byte(keyPath)); err == nil {
					t.Errorf("%s: read %q, want an error", name, got)
				}
			}
			flipped := bytes.Clone(stored)
			flipped[len(flipped)-20] ^= 1
			if got, _, err := tr.read(flipped, []byte(keyPath)); err == nil && string(got) == plain {
				t.Errorf("altered value read as the plaintext")
			}
		})
	}
}

// TestStaleness checks kube-apiserver's rule: a read by anything but the
// first provider's first key is stale, and identity yields to an
// encrypting provider for encrypted values.
func TestStaleness(t *testing.T) {
	aesOld := secretsWith(t, provider("aesgcm", "old", key32))
	byOld, _ := aesOld.write([]byte(plain), []byte(keyPath))
	tests := []struct {
		name      string
		providers []string
		stored    []byte
		stale     bool
	}{
		{"first key", []string{provider("aesgcm", "old", key32, "new", other)}, byOld, false},
		{"second key", []string{provider("aesgcm", "new", other, "old", key32)}, byOld, true},
		{"second provider", []string{provider("secretbox", "new", other), provider("aesgcm", "old", key32)}, byOld, true},
		{"identity first, encrypted", []string{provider("identity"), provider("aesgcm", "old", key32)}, byOld, true},
		{"identity first, plain", []string{provider("identity"), provider("aesgcm", "old", key32)}, []byte(plain), false},
		{"identity second, plain", []string{provider("aesgcm", "new", other), provider("identity")}, []byte(plain), true},
		{"same provider twice", []string{provider("aesgcm", "new", other), provider("aesgcm", "old", key32)}, byOld, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stale, err := secretsWith(t, tt.providers...).read(tt.stored, []byte(keyPath))
			if err != nil || string(got) != plain || stale != tt.stale {
				t.Fatalf("read = %q, stale %v, %v; want %q, stale %v", got, stale, err, plain, tt.stale)
			}
		})
	}
}
